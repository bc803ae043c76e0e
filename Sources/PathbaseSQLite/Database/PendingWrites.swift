import GRDBSQLite
import Pathbase

/// Writes of the running batch not yet handed to SQLite, stored together with one
/// multi-row statement per table instead of two statements per value.
///
/// Each statement costs about as much to run as the row it writes: creating an object of
/// five properties was twelve statements, against one for a fixed-schema row. Inside a
/// batch, writes of plain values (not statuses, not reference lists, whose writes update
/// mirrors and tables that need to know whether the row became current) wait here, up to
/// ``maximumRows``. They are written, in order, before anything reads the file
/// (``SQLiteDatabase/openHandle()``), before a savepoint is set or released, and before
/// the commit; a rollback drops them with the rows they stand for. A failure to write them
/// fails the batch, which then throws it, as a failed single write does.
///
/// Multi-row statements keep each row's meaning: `records` ignores a record it holds
/// already, and `current_values` takes a row only if it is newer than the current one —
/// row by row, so two writes of one path in one statement end with the newer. Used while
/// holding the database's lock.
final class PendingWrites: RowMirror {

    /// Rows per statement: enough to hold an object's properties, few enough that the
    /// statements of every size stay small.
    static let maximumRows = 16

    struct Row {
        let path: Path
        let timestamp: Pathbase.Timestamp
        let tag: Int64
        let value: StoredValue
    }

    /// Checked by every read: unchecked exclusivity, as the database's lock guards it.
    @exclusivity(unchecked) private var rows: [Row] = []
    /// The multi-row statements by row count (index 0 holds one row).
    private var insertRecords: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var upsertCurrent: [Statement?] = Array(repeating: nil, count: maximumRows)

    init() {
        rows.reserveCapacity(Self.maximumRows)
    }

    var isEmpty: Bool { rows.isEmpty }
    var isFull: Bool { rows.count >= Self.maximumRows }

    func append(_ row: Row) {
        rows.append(row)
    }

    /// Writes the waiting rows into `records` (when the file keeps history) and
    /// `current_values`, and forgets them; on a failure they are forgotten too (the batch
    /// fails and rolls back).
    func write(keepsHistory: Bool, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        guard !rows.isEmpty else { return }
        defer { rows.removeAll(keepingCapacity: true) }
        if keepsHistory {
            try run(statement(&insertRecords, Self.insertRecordsSQL, connection: connection), connection: connection)
        }
        try run(statement(&upsertCurrent, Self.upsertCurrentSQL, connection: connection), connection: connection)
    }

    func rowsRolledBack() {
        rows.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in insertRecords + upsertCurrent { statement?.finalize() }
        insertRecords = Array(repeating: nil, count: Self.maximumRows)
        upsertCurrent = Array(repeating: nil, count: Self.maximumRows)
        rows.removeAll()
    }

    private func statement(_ cache: inout [Statement?], _ sql: (Int) -> String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = cache[rows.count - 1] { return statement }
        let statement = try Statement(sql: sql(rows.count), connection: connection)
        cache[rows.count - 1] = statement
        return statement
    }

    /// Binds every row (8 parameters each, in the order of the columns) and runs it.
    private func run(_ statement: Statement, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        for (index, row) in rows.enumerated() {
            let first = Int32(index * 8 + 1)
            statement.bind(row.path.model, at: first)
            statement.bind(row.path.property, at: first + 1)
            statement.bind(row.path.instance, at: first + 2)
            statement.bind(row.timestamp, at: first + 3)
            statement.bind(row.tag, at: first + 6)
            statement.bind(row.value, at: first + 7)
        }
        let code = statement.step()
        statement.reset()
        guard code == SQLITE_DONE else {
            throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    private static func values(_ count: Int) -> String {
        (0 ..< count).map { _ in "(?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", ")
    }

    private static func insertRecordsSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO records(model, property, instance, time, counter, replica, type, value) VALUES \(values(count))"
    }

    private static func upsertCurrentSQL(_ count: Int) -> String {
        "INSERT INTO current_values(model, property, instance, time, counter, replica, type, value) VALUES \(values(count))"
            + Statements.newestWins
    }
}
