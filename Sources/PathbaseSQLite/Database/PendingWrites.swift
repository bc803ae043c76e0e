import GRDBSQLite
import Pathbase

/// Writes of the running batch not yet handed to SQLite, stored together with one
/// multi-row statement per table instead of two statements per value.
///
/// Each statement costs about as much to run as the row it writes: creating an object of
/// five properties was twelve statements, against one for a fixed-schema row. Inside a
/// batch, every write waits here, up to ``maximumRows``. They are written before anything
/// reads the file (``SQLiteDatabase/openHandle()``; a point read only when its path is
/// waiting), before a savepoint is set or released, and before the commit; a rollback drops
/// them with the rows they stand for. A failure to write them fails the batch, which then
/// throws it, as a failed single write does.
///
/// Multi-row statements keep each row's meaning: `current_values` takes a row only if it
/// is newer than the current one — row by row, so two writes of one path in one statement
/// end with the newer, whatever their order — and with history, the triggers of ``Schema``
/// keep the record each row replaced. A row that did not become current (older than the
/// current one, or the same record again) is written into the history afterwards, by
/// ``writeOlderRecords``, which ignores a record the history holds already; SQLite's count
/// of changed rows tells whether any row needs it. Statuses and reference lists update in-memory mirrors and
/// `list_members` when they become current: each goes into `current_values` in a statement
/// of its own, which tells whether it did. (A `RETURNING` clause on one statement for all of
/// them cost more than the statements it saved: SQLite buffers its rows in a temporary
/// table.) Used while holding the database's lock.
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
    @exclusivity(unchecked) private var plain: [Row] = []
    @exclusivity(unchecked) private var mirrored: [Row] = []
    /// The multi-row statements by row count (index 0 holds one row).
    private var upsertCurrent: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var insertOlderRecords: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var insertOlderRecordTimes: [Statement?] = Array(repeating: nil, count: maximumRows)

    init() {
        plain.reserveCapacity(Self.maximumRows)
        mirrored.reserveCapacity(Self.maximumRows)
    }

    var isEmpty: Bool { plain.isEmpty && mirrored.isEmpty }
    var isFull: Bool { plain.count + mirrored.count >= Self.maximumRows }

    func append(_ row: Row) {
        if row.isMirrored { mirrored.append(row) } else { plain.append(row) }
    }

    /// Whether a write of `path` is waiting: a read of it must write them first.
    @inline(__always)
    func contains(_ path: Path) -> Bool {
        plain.contains { $0.path == path } || mirrored.contains { $0.path == path }
    }

    /// Writes the waiting rows into `current_values` (and with history, those that did not
    /// become current into the history), calls `becameCurrent` with each status or list that
    /// is now its path's current value, and forgets them; on a failure they are forgotten
    /// too (the batch fails and rolls back).
    ///
    /// `inTransaction` runs the statements for rows that did not become current (two of
    /// them): a caller outside a batch wraps them in a transaction, so that they write
    /// both or neither. The upsert alone needs none: it is one statement.
    func write(
        keepsHistory: Bool,
        connection: OpaquePointer,
        becameCurrent: (Row) throws(SQLiteDatabaseError) -> Void,
        inTransaction: (() throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) -> Void = { body throws(SQLiteDatabaseError) in try body() }
    ) throws(SQLiteDatabaseError) {
        guard !isEmpty else { return }
        defer {
            plain.removeAll(keepingCapacity: true)
            mirrored.removeAll(keepingCapacity: true)
        }
        var allBecameCurrent = true
        if !plain.isEmpty {
            let statement = try self.statement(&upsertCurrent, count: plain.count, Self.upsertCurrentSQL, connection: connection)
            bind(plain, to: statement, from: 0)
            try run(statement, connection: connection)
            allBecameCurrent = sqlite3_changes(connection) == Int32(plain.count)
        }
        for row in mirrored {
            let statement = try self.statement(&upsertCurrent, count: 1, Self.upsertCurrentSQL, connection: connection)
            bind(CollectionOfOne(row), to: statement, from: 0)
            try run(statement, connection: connection)
            if sqlite3_changes(connection) > 0 {
                try becameCurrent(row)
            } else {
                allBecameCurrent = false
            }
        }
        if keepsHistory, !allBecameCurrent {
            try inTransaction { () throws(SQLiteDatabaseError) in
                try writeOlderRecords(connection: connection)
            }
        }
    }

    /// Writes into `superseded_records` and `record_times` every waiting row that is not
    /// its path's current record. A row that became current and was then replaced by a
    /// newer one of the same statement is there already (the trigger moved it).
    private func writeOlderRecords(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let count = plain.count + mirrored.count
        let records = try statement(&insertOlderRecords, count: count, Self.insertOlderRecordsSQL, connection: connection)
        let times = try statement(&insertOlderRecordTimes, count: count, Self.insertOlderRecordTimesSQL, connection: connection)
        for statement in [records, times] {
            bind(plain, to: statement, from: 0)
            bind(mirrored, to: statement, from: plain.count)
            try run(statement, connection: connection)
        }
    }

    func rowsRolledBack() {
        plain.removeAll(keepingCapacity: true)
        mirrored.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in upsertCurrent + insertOlderRecords + insertOlderRecordTimes { statement?.finalize() }
        upsertCurrent = Array(repeating: nil, count: Self.maximumRows)
        insertOlderRecords = Array(repeating: nil, count: Self.maximumRows)
        insertOlderRecordTimes = Array(repeating: nil, count: Self.maximumRows)
        plain.removeAll()
        mirrored.removeAll()
    }

    private func statement(_ cache: inout [Statement?], count: Int, _ sql: (Int) -> String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = cache[count - 1] { return statement }
        let statement = try Statement(sql: sql(count), connection: connection)
        cache[count - 1] = statement
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

    /// Binds rows (8 parameters each, in the order of the columns) from row `first` on.
    private func bind(_ rows: some Collection<Row>, to statement: Statement, from first: Int) {
        for (offset, row) in rows.enumerated() {
            let index = first + offset
            let parameter = Int32(index * 8 + 1)
            statement.bind(row.path.model, at: parameter)
            statement.bind(row.path.property, at: parameter + 1)
            statement.bind(row.path.instance, at: parameter + 2)
            statement.bind(row.timestamp, at: parameter + 3)
            statement.bind(row.tag, at: parameter + 6)
            statement.bind(row.value, at: parameter + 7)
        }
    }

    /// The conflict clause of an insert into `current_values`: a row replaces the current
    /// one only if its timestamp is newer.
    private static let newestWins = """

        ON CONFLICT(model, instance, property) DO UPDATE SET
            time = excluded.time, counter = excluded.counter, replica = excluded.replica,
            type = excluded.type, value = excluded.value
        WHERE (excluded.time, excluded.counter, excluded.replica)
            > (current_values.time, current_values.counter, current_values.replica)
        """

    private static func values(_ count: Int) -> String {
        (0 ..< count).map { _ in "(?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", ")
    }

    /// The rows of a `VALUES` list (columns `column1` … `column8`, in the order of
    /// ``Schema/recordColumns``) that are not their path's current record.
    private static func notCurrentSQL(_ count: Int, columns: String) -> String {
        """
        SELECT \(columns) FROM (VALUES \(values(count))) AS v
        WHERE NOT EXISTS (
            SELECT 1 FROM current_values c
            WHERE c.model = v.column1 AND c.instance = v.column3 AND c.property = v.column2
              AND c.time = v.column4 AND c.counter = v.column5 AND c.replica = v.column6)
        """
    }

    private static func insertOlderRecordsSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO superseded_records(\(Schema.recordColumns)) "
            + notCurrentSQL(count, columns: "column1, column2, column3, column4, column5, column6, column7, column8")
    }

    private static func insertOlderRecordTimesSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO record_times(\(Schema.recordTimeColumns)) "
            + notCurrentSQL(count, columns: "column4, column5, column6, column1, column3, column2")
    }

    private static func upsertCurrentSQL(_ count: Int) -> String {
        "INSERT INTO current_values(model, property, instance, time, counter, replica, type, value) VALUES \(values(count))"
            + newestWins
    }
}
