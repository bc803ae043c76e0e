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
/// Multi-row statements keep each row's meaning: with history, `record_times` ignores a
/// record it holds already; `current_values` takes a row only if it is newer than the
/// current one — row by row, so two writes of one path in one statement end with the
/// newer, whatever their order — and the trigger of ``Schema`` moves the record each row
/// replaced into `superseded_records`. A row that did not become current (older than the
/// current one, or the same record again) goes there afterwards, by ``writeOlderRecords``,
/// which ignores a record it holds already; SQLite's count of changed rows tells whether
/// any row needs it. Statuses and reference lists update in-memory mirrors and
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
    private var insertRecordTimes: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var upsertCurrent: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var insertOlderRecords: [Statement?] = Array(repeating: nil, count: maximumRows)

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

    /// Writes the waiting rows into `current_values` (with history: their times into
    /// `record_times`, and those that did not become current into `superseded_records`),
    /// calls `becameCurrent` with each status or list that is now its path's current value,
    /// and forgets them; on a failure they are forgotten too (the batch fails and rolls
    /// back). With history, or with a status or list waiting, that is more than one
    /// statement: outside a batch, the caller runs it in a transaction.
    func write(keepsHistory: Bool, connection: OpaquePointer, becameCurrent: (Row) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        guard !isEmpty else { return }
        defer {
            plain.removeAll(keepingCapacity: true)
            mirrored.removeAll(keepingCapacity: true)
        }
        if keepsHistory {
            // A statement of its own rather than a trigger on `current_values`: a trigger's
            // frame per row cost more than the b-tree entry it writes.
            let statement = try self.statement(&insertRecordTimes, count: plain.count + mirrored.count, Self.insertRecordTimesSQL, connection: connection)
            bindTimes(plain, to: statement, from: 0)
            bindTimes(mirrored, to: statement, from: plain.count)
            try run(statement, connection: connection)
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
            try writeOlderRecords(connection: connection)
        }
    }

    /// Writes into `superseded_records` every waiting row that is not its path's current
    /// record. A row that became current and was then replaced by a newer one of the same
    /// statement is there already (the trigger moved it).
    private func writeOlderRecords(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let statement = try self.statement(&insertOlderRecords, count: plain.count + mirrored.count, Self.insertOlderRecordsSQL, connection: connection)
        bind(plain, to: statement, from: 0)
        bind(mirrored, to: statement, from: plain.count)
        try run(statement, connection: connection)
    }

    func rowsRolledBack() {
        plain.removeAll(keepingCapacity: true)
        mirrored.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in insertRecordTimes + upsertCurrent + insertOlderRecords { statement?.finalize() }
        insertRecordTimes = Array(repeating: nil, count: Self.maximumRows)
        upsertCurrent = Array(repeating: nil, count: Self.maximumRows)
        insertOlderRecords = Array(repeating: nil, count: Self.maximumRows)
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

    /// Binds rows' timestamps and paths (6 parameters each, in the order of
    /// ``Schema/recordTimeColumns``) from row `first` on.
    private func bindTimes(_ rows: some Collection<Row>, to statement: Statement, from first: Int) {
        for (offset, row) in rows.enumerated() {
            let parameter = Int32((first + offset) * 6 + 1)
            statement.bind(row.timestamp, at: parameter)
            statement.bind(row.path.model, at: parameter + 3)
            statement.bind(row.path.instance, at: parameter + 4)
            statement.bind(row.path.property, at: parameter + 5)
        }
    }

    private static func values(_ count: Int, columns: Int = 8) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: count).joined(separator: ", ")
    }

    private static func insertRecordTimesSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO record_times(\(Schema.recordTimeColumns)) VALUES \(values(count, columns: 6))"
    }

    private static func insertOlderRecordsSQL(_ count: Int) -> String {
        """
        INSERT OR IGNORE INTO superseded_records(\(Schema.recordColumns))
        SELECT * FROM (VALUES \(values(count))) AS v
        WHERE NOT EXISTS (
            SELECT 1 FROM current_values c
            WHERE c.model = v.column1 AND c.instance = v.column3 AND c.property = v.column2
              AND c.time = v.column4 AND c.counter = v.column5 AND c.replica = v.column6)
        """
    }

    private static func upsertCurrentSQL(_ count: Int) -> String {
        "INSERT INTO current_values(model, property, instance, time, counter, replica, type, value) VALUES \(values(count))"
            + newestWins
    }
}
