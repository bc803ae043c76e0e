import GRDBSQLite

extension SQLiteDatabase {

    /// Throws the batch's failure if SQLite ended the batch's transaction on its own.
    ///
    /// After some errors (an I/O error, a full disk, no memory) SQLite rolls the whole
    /// transaction back by itself. A batch that went on would run its next statements in
    /// autocommit mode, each stored on its own, and then fail at `COMMIT`: a batch reported
    /// failed whose later writes are in the file (found by the fault sweep, issue 44). So
    /// every write, and the batch's end, checks first; the batch then rolls back and throws.
    @inline(__always)
    func checkTransactionKept(_ handle: OpaquePointer, cause: SQLiteDatabaseError? = nil) throws(SQLiteDatabaseError) {
        guard transaction.inBatch, sqlite3_get_autocommit(handle) != 0 else { return }
        let failure = transaction.failure ?? cause ?? .sqlite(code: SQLITE_ABORT, message: "SQLite rolled the transaction back after an error")
        transaction.failed(failure)
        throw failure
    }

    /// Makes `error` the batch's failure if SQLite rolled the batch's transaction back
    /// with it (a read that failed with an I/O error, say).
    func noteTransactionLoss(_ error: SQLiteDatabaseError) {
        guard transaction.inBatch, case .sqlite = error else { return }
        if let handle = currentHandle { try? checkTransactionKept(handle, cause: error) }
    }
}
