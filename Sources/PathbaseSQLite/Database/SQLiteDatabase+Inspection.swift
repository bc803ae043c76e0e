import GRDBSQLite
import Pathbase

/// How many instances of one model a database holds, by status.
///
/// ```swift
/// for summary in try database.modelSummaries() {
///     print(summary.model, summary.created, summary.deleted)
/// }
/// ```
public struct ModelSummary: Hashable, Sendable {

    /// The model id.
    public var model: ModelKey

    /// The number of instances whose current status is `.created`.
    public var created: Int

    /// The number of instances whose current status is `.deleted`.
    public var deleted: Int

    /// Creates a summary.
    public init(model: ModelKey, created: Int, deleted: Int) {
        self.model = model
        self.created = created
        self.deleted = deleted
    }
}

extension SQLiteDatabase {

    /// The models that have instances, ordered by id, with their instance counts.
    ///
    /// ```swift
    /// let summaries = try database.modelSummaries()
    /// ```
    ///
    /// For tools such as `pathbase inspect` and Studio's overview. The first call reads the
    /// status of every instance (one scan of the instance table); later calls answer from
    /// memory until this connection writes a status or another connection commits.
    public func modelSummaries() throws(SQLiteDatabaseError) -> [ModelSummary] {
        let status = Schema.valueExpressions(property: PropertyKey.instanceId, body: "body")
        let tag = ValueTag.status.rawValue
        return try locked { () throws(SQLiteDatabaseError) -> [ModelSummary] in
            let handle = try openHandle()
            return try instanceCounts.summaries(handle: handle) { () throws(SQLiteDatabaseError) -> [ModelSummary] in
                let statement = try Statement(
                    sql: """
                        SELECT model, sum(type = \(tag) AND value = \(InstanceStatus.created.rawValue)),
                            sum(type = \(tag) AND value = \(InstanceStatus.deleted.rawValue))
                        FROM (SELECT model, \(status.type) AS type, \(status.value) AS value FROM instance_values)
                        GROUP BY model HAVING sum(type = \(tag)) > 0 ORDER BY model
                        """,
                    connection: handle
                )
                defer { statement.finalize() }
                var summaries: [ModelSummary] = []
                while try statement.hasRow() {
                    summaries.append(ModelSummary(model: Int(statement.int64(at: 0)), created: Int(statement.int64(at: 1)), deleted: Int(statement.int64(at: 2))))
                }
                return summaries
            }
        }
    }

    /// The current record of every property of one instance, its status (property 0) first.
    ///
    /// ```swift
    /// for record in try database.currentRecords(model: 1, instance: 7) {
    ///     print(record.path.property, record.value, record.timestamp)
    /// }
    /// ```
    ///
    /// Values are of the type that wrote them, or `EncodedValue`s (see
    /// ``records(after:limit:)``). With a `valuePrefix`, a `String` longer than that many
    /// characters (Unicode scalars) or `Data` longer than that many bytes is a
    /// ``ValuePrefix`` of its start, cut in SQL: only the start is sorted, copied and decoded
    /// (SQLite still reads the whole value from the file to cut it). For tools.
    public func currentRecords(model: ModelKey, instance: InstanceKey, valuePrefix: Int? = nil) throws(SQLiteDatabaseError) -> [Record] {
        try instanceRecords(table: "current_values", model: model, instance: instance, order: "property", valuePrefix: valuePrefix)
    }

    /// Every record of every property of one instance, oldest first (without history: the
    /// current ones).
    ///
    /// ```swift
    /// for record in try database.records(model: 1, instance: 7) {
    ///     print(record.timestamp, record.path.property, record.value)
    /// }
    /// ```
    ///
    /// With a `valuePrefix`, long strings and bytes are ``ValuePrefix``es, as in
    /// ``currentRecords(model:instance:valuePrefix:)``.
    public func records(model: ModelKey, instance: InstanceKey, valuePrefix: Int? = nil) throws(SQLiteDatabaseError) -> [Record] {
        try instanceRecords(
            table: "(SELECT * FROM current_values UNION ALL SELECT * FROM superseded_records)",
            model: model,
            instance: instance,
            order: "time, counter, replica, property",
            valuePrefix: valuePrefix
        )
    }

    private func instanceRecords(table: String, model: ModelKey, instance: InstanceKey, order: String, valuePrefix: Int?) throws(SQLiteDatabaseError) -> [Record] {
        // With a prefix (?3), only TEXT and BLOB are cut: substr counts characters of TEXT
        // and bytes of a BLOB; the size is the whole value's bytes either way. Other tags
        // (numbers, reference lists, JSON bodies) are read whole, as they must decode.
        // Cut in SQL rather than from the column's bytes: ORDER BY sorts the result rows,
        // which then hold the start of a value only (measured: half the page time).
        let cuttable = "?3 IS NOT NULL AND type IN (\(ValueTag.string.rawValue), \(ValueTag.data.rawValue))"
        let sql = """
            SELECT property, time, counter, replica, type,
                CASE WHEN \(cuttable) THEN substr(value, 1, ?3) ELSE value END,
                CASE WHEN \(cuttable) THEN length(CAST(value AS BLOB)) END
            FROM \(table) WHERE model = ?1 AND instance = ?2 ORDER BY \(order)
            """
        return try locked { () throws(SQLiteDatabaseError) -> [Record] in
            let statement = try queryStatements.fixed(sql, connection: try openHandle())
            defer { statement.reset() }
            statement.bind(model, at: 1)
            statement.bind(instance, at: 2)
            if let valuePrefix { statement.bind(max(0, valuePrefix), at: 3) } else { statement.bindNull(at: 3) }
            var records: [Record] = []
            while try statement.hasRow() {
                var value = try codec.anyValue(from: statement, tag: 4, value: 5)
                if !statement.isNull(at: 6), let prefix = ValuePrefix(value, byteCount: Int(statement.int64(at: 6))) {
                    value = prefix
                }
                records.append(
                    Record(
                        path: Path(model: model, instance: instance, property: Int(statement.int64(at: 0))),
                        timestamp: statement.timestamp(at: 1),
                        value: value
                    ))
            }
            return records
        }
    }

    /// Compiles and runs a query once, under the lock.
    func query<Row>(_ sql: String, bind: (Statement) -> Void, row: (Statement) throws(SQLiteDatabaseError) -> Row) throws(SQLiteDatabaseError) -> [Row] {
        try locked { () throws(SQLiteDatabaseError) -> [Row] in
            let statement = try Statement(sql: sql, connection: try openHandle())
            defer { statement.finalize() }
            bind(statement)
            var rows: [Row] = []
            while try statement.hasRow() {
                rows.append(try row(statement))
            }
            return rows
        }
    }
}
