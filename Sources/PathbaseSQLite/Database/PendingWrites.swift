import GRDBSQLite
import Pathbase

/// Writes of the running batch not yet handed to SQLite, stored together with one
/// multi-row statement per table instead of statements per value.
///
/// Each statement costs about as much to run as the row it writes: creating an object of
/// five properties was twelve statements, against one for a fixed-schema row. Inside a
/// batch, every write waits here, up to ``maximumRows``. They are written before anything
/// reads the file (``SQLiteDatabase/openHandle()``; a point read only when its path is
/// waiting), before a savepoint is set or released, and before the commit; a rollback drops
/// them with the rows they stand for. A failure to write them fails the batch, which then
/// throws it, as a failed single write does. Outside a batch, a write goes through here
/// too, alone.
///
/// Multi-row statements keep each row's meaning: with history, `record_times` ignores a
/// record it holds already; `current_values` takes a row only if it is newer than the
/// current one — row by row, so two writes of one path in one statement end with the
/// newer, whatever their order — and the trigger of ``Schema`` moves the record each row
/// replaced into `superseded_records`. SQLite's count of changed rows tells whether every
/// row became current, as they do when an app writes. When one did not (older than the
/// current one, or the same record again: a sync pull), the rows that are not current go
/// into `superseded_records` (``writeOlderRecords``), and each status or list is looked up
/// to learn whether it is current. Statuses and reference lists update in-memory mirrors
/// and `list_members` when they become current (`becameCurrent`). Used while holding the
/// database's lock.
final class PendingWrites: RowMirror {

    /// Rows per statement: enough to hold an object's properties, few enough that the
    /// statements of every size stay small.
    static let maximumRows = 16

    struct Row {
        let path: Path
        let timestamp: Pathbase.Timestamp
        let tag: Int64
        let value: StoredValue

        /// A status or a reference list: its mirrors follow it when it becomes current.
        var isMirrored: Bool {
            path.property == PropertyKey.instanceId || tag == ValueTag.integerArray.rawValue
        }
    }

    /// Checked by every read: unchecked exclusivity, as the database's lock guards it.
    @exclusivity(unchecked) private var rows: [Row] = []
    /// The multi-row statements by row count (index 0 holds one row).
    private var insertRecordTimes: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var upsertCurrent: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var insertOlderRecords: [Statement?] = Array(repeating: nil, count: maximumRows)
    /// (?1 model, ?2 property, ?3 instance, ?4 time, ?5 counter, ?6 replica) → a row if that
    /// record is its path's current one.
    private var selectIsCurrent: Statement?

    init() {
        rows.reserveCapacity(Self.maximumRows)
    }

    var isEmpty: Bool { rows.isEmpty }
    var isFull: Bool { rows.count >= Self.maximumRows }

    func append(_ row: Row) {
        rows.append(row)
    }

    /// Whether a write of `path` is waiting: a read of it must write them first.
    @inline(__always)
    func contains(_ path: Path) -> Bool {
        rows.contains { $0.path == path }
    }

    /// Writes the waiting rows into `current_values` (with history: their times into
    /// `record_times`, and those that did not become current into `superseded_records`),
    /// calls `becameCurrent` with each status or list that is now its path's current value,
    /// and forgets them; on a failure they are forgotten too (the batch fails and rolls
    /// back). With history, or with a status or list waiting, that is more than one
    /// statement: outside a batch, the caller runs it in a transaction.
    func write(keepsHistory: Bool, connection: OpaquePointer, becameCurrent: (Row) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        guard !rows.isEmpty else { return }
        defer { forget() }
        if keepsHistory {
            // A statement of its own rather than a trigger on `current_values`: a trigger's
            // frame per row cost more than the b-tree entry it writes.
            let statement = try self.statement(&insertRecordTimes, Self.insertRecordTimesSQL, connection: connection)
            for (index, row) in rows.enumerated() {
                let parameter = Int32(index * 6 + 1)
                statement.bind(row.timestamp, at: parameter)
                statement.bind(row.path.model, at: parameter + 3)
                statement.bind(row.path.instance, at: parameter + 4)
                statement.bind(row.path.property, at: parameter + 5)
            }
            try run(statement, connection: connection)
        }
        let upsert = try statement(&upsertCurrent, Self.upsertCurrentSQL, connection: connection)
        bindRecords(to: upsert)
        try run(upsert, connection: connection)
        let allBecameCurrent = sqlite3_changes(connection) == Int32(rows.count)
        // Row by row in order: of two rows of one path that both became current, the newer
        // comes last.
        for row in rows where row.isMirrored {
            let current = allBecameCurrent ? true : try isCurrent(row, connection: connection)
            if current { try becameCurrent(row) }
        }
        if keepsHistory, !allBecameCurrent {
            try writeOlderRecords(connection: connection)
        }
    }

    /// Writes into `superseded_records` every waiting row that is not its path's current
    /// record. A row that became current and was then replaced by a newer one of the same
    /// statement is there already (the trigger moved it).
    private func writeOlderRecords(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let statement = try self.statement(&insertOlderRecords, Self.insertOlderRecordsSQL, connection: connection)
        bindRecords(to: statement)
        try run(statement, connection: connection)
    }

    /// Whether a row is its path's current record now.
    private func isCurrent(_ row: Row, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Bool {
        let statement: Statement
        if let selectIsCurrent {
            statement = selectIsCurrent
        } else {
            statement = try Statement(sql: """
                SELECT 1 FROM current_values
                WHERE model = ?1 AND property = ?2 AND instance = ?3 AND time = ?4 AND counter = ?5 AND replica = ?6
                """, connection: connection)
            selectIsCurrent = statement
        }
        statement.bindPath(row.path)
        statement.bind(row.timestamp, at: 4)
        defer { statement.reset() }
        return try statement.hasRow()
    }

    func rowsRolledBack() {
        forget()
    }

    private func forget() {
        rows.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in insertRecordTimes + upsertCurrent + insertOlderRecords { statement?.finalize() }
        selectIsCurrent?.finalize()
        selectIsCurrent = nil
        insertRecordTimes = Array(repeating: nil, count: Self.maximumRows)
        upsertCurrent = Array(repeating: nil, count: Self.maximumRows)
        insertOlderRecords = Array(repeating: nil, count: Self.maximumRows)
        rows.removeAll()
    }

    /// The statement for the waiting rows' count, compiled the first time.
    private func statement(_ cache: inout [Statement?], _ sql: (Int) -> String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = cache[rows.count - 1] { return statement }
        let statement = try Statement(sql: sql(rows.count), connection: connection)
        cache[rows.count - 1] = statement
        return statement
    }

    /// Runs a bound statement.
    private func run(_ statement: Statement, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let code = statement.step()
        statement.reset()
        guard code == SQLITE_DONE else {
            throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// Binds the rows, 8 parameters each in the order of ``Schema/recordColumns``.
    private func bindRecords(to statement: Statement) {
        for (index, row) in rows.enumerated() {
            let parameter = Int32(index * 8 + 1)
            statement.bind(row.path.model, at: parameter)
            statement.bind(row.path.property, at: parameter + 1)
            statement.bind(row.path.instance, at: parameter + 2)
            statement.bind(row.timestamp, at: parameter + 3)
            statement.bind(row.tag, at: parameter + 6)
            statement.bind(row.value, at: parameter + 7)
        }
    }

    private static func values(_ count: Int, columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: count).joined(separator: ", ")
    }

    private static func insertRecordTimesSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO record_times(\(Schema.recordTimeColumns)) VALUES \(values(count, columns: 6))"
    }

    /// A row replaces the current one only if its timestamp is newer.
    private static func upsertCurrentSQL(_ count: Int) -> String {
        """
        INSERT INTO current_values(\(Schema.recordColumns)) VALUES \(values(count, columns: 8))
        ON CONFLICT(model, instance, property) DO UPDATE SET
            time = excluded.time, counter = excluded.counter, replica = excluded.replica,
            type = excluded.type, value = excluded.value
        WHERE (excluded.time, excluded.counter, excluded.replica)
            > (current_values.time, current_values.counter, current_values.replica)
        """
    }

    /// A record column's name in a `VALUES` list of records (`column1` is the model).
    private static func valuesColumn(_ name: String) -> String {
        "v.column\((Schema.recordColumnNames.firstIndex(of: name) ?? 0) + 1)"
    }

    private static func insertOlderRecordsSQL(_ count: Int) -> String {
        """
        INSERT OR IGNORE INTO superseded_records(\(Schema.recordColumns))
        SELECT * FROM (VALUES \(values(count, columns: 8))) AS v
        WHERE NOT \(Schema.holdsRecord("current_values", sameAs: valuesColumn))
        """
    }
}
