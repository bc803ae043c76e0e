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
/// Multi-row statements keep each row's meaning: `records` ignores a record it holds
/// already, and `current_values` takes a row only if it is newer than the current one —
/// row by row, so two writes of one path in one statement end with the newer, whatever the
/// order of the statements. Statuses and reference lists update in-memory mirrors and
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
    private var insertRecords: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var upsertCurrent: [Statement?] = Array(repeating: nil, count: maximumRows)

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

    /// Writes the waiting rows into `records` (when the file keeps history) and
    /// `current_values`, calls `becameCurrent` with each status or list that is now its
    /// path's current value, and forgets them; on a failure they are forgotten too (the
    /// batch fails and rolls back).
    func write(keepsHistory: Bool, connection: OpaquePointer, becameCurrent: (Row) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        guard !isEmpty else { return }
        defer {
            plain.removeAll(keepingCapacity: true)
            mirrored.removeAll(keepingCapacity: true)
        }
        if keepsHistory {
            let statement = try self.statement(&insertRecords, count: plain.count + mirrored.count, Self.insertRecordsSQL, connection: connection)
            bind(plain, to: statement, from: 0)
            bind(mirrored, to: statement, from: plain.count)
            try run(statement, connection: connection)
        }
        if !plain.isEmpty {
            let statement = try self.statement(&upsertCurrent, count: plain.count, Self.upsertCurrentSQL, connection: connection)
            bind(plain, to: statement, from: 0)
            try run(statement, connection: connection)
        }
        for row in mirrored {
            let statement = try self.statement(&upsertCurrent, count: 1, Self.upsertCurrentSQL, connection: connection)
            bind(CollectionOfOne(row), to: statement, from: 0)
            try run(statement, connection: connection)
            if sqlite3_changes(connection) > 0 { try becameCurrent(row) }
        }
    }

    func rowsRolledBack() {
        plain.removeAll(keepingCapacity: true)
        mirrored.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in insertRecords + upsertCurrent { statement?.finalize() }
        insertRecords = Array(repeating: nil, count: Self.maximumRows)
        upsertCurrent = Array(repeating: nil, count: Self.maximumRows)
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
