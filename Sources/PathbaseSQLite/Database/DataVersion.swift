/// `PRAGMA data_version` on one connection, compiled on first use: a number that changes
/// when another connection (another process) committed to the file since this connection
/// last looked. Used only while holding the database's lock.
struct DataVersion {

    private var statement: Statement?

    /// The file's data version as this connection sees it now; `nil` if SQLite returned no row.
    mutating func read(handle: OpaquePointer) throws(SQLiteDatabaseError) -> Int64? {
        let statement: Statement
        if let existing = self.statement {
            statement = existing
        } else {
            statement = try Statement(sql: "PRAGMA data_version", connection: handle)
            self.statement = statement
        }
        defer { statement.reset() }
        guard try statement.hasRow() else { return nil }
        return statement.int64(at: 0)
    }

    /// Finalizes the statement before the connection closes.
    mutating func finalize() {
        statement?.finalize()
        statement = nil
    }
}
