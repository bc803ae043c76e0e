import GRDBSQLite
import Pathbase

extension SQLiteDatabase {

    /// Runs `body` as one SQLite transaction: all of its writes are stored, or none.
    ///
    /// ```swift
    /// try database.batch {
    ///     let order = Order.create(in: database, id: 7, total: 120)
    ///     customer.orders.append(order)
    /// }
    /// ```
    ///
    /// If `body` throws, or one of its writes fails, nothing it wrote is stored and the
    /// error is thrown. Other threads wait until the batch ends; `body` itself may read and
    /// write this database (and reads see its own writes). A batch inside a batch joins it,
    /// as a savepoint: if the inner body throws, only its writes are undone, and the outer
    /// batch may catch the error and go on. Returns what `body` returns.
    ///
    /// Writes in a batch cost a fraction of separate writes (no commit per write): batch
    /// whatever can be batched. To read many values, use ``read(_:)``.
    @discardableResult
    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        try locked { () throws -> Result in
            _ = try openHandle()
            return !transaction.inBatch ? try runTransaction(begin: statements.begin, writing: true, body) : try runSavepoint(body)
        }
    }

    /// Runs `body` in one read transaction: its reads see one state of the file, and cost
    /// less than reads outside a transaction.
    ///
    /// ```swift
    /// let names = try database.read { people.map(\.name) }
    /// ```
    ///
    /// On a WAL file, each read outside a transaction takes and releases SQLite's
    /// shared-memory lock, about half of its cost; reads inside `read` share one. Unlike a
    /// ``batch(_:)``, it does not take the file's write lock: other connections and
    /// processes go on writing, and `body` doesn't see what they commit after its first
    /// read. Other threads of this
    /// process wait until it ends. A write inside `body` makes it a batch (all-or-nothing),
    /// which throws if another connection wrote since the read began: write in `batch`.
    /// Inside a batch, `read` joins it. Returns what `body` returns.
    @discardableResult
    public func read<Result>(_ body: () throws -> Result) throws -> Result {
        try locked { () throws -> Result in
            _ = try openHandle()
            return !transaction.inBatch ? try runTransaction(begin: statements.beginDeferred, writing: false, body) : try runSavepoint(body)
        }
    }

    private func runTransaction<Result>(begin: Statement, writing: Bool, _ body: () throws -> Result) throws -> Result {
        // What the transaction saw of the file may change once it ends.
        defer {
            listingColumns.transactionEnded()
            retainedPaths.removeAll()
        }
        try execute(begin)
        if writing {
            // The write lock is held: stamps from here on follow every committed record.
            do throws(SQLiteDatabaseError) {
                try fileClock.catchUp(clock, handle: try writeHandle())
            } catch {
                rollback()
                throw error
            }
        }
        transaction.began()
        let result: Result
        do {
            result = try body()
        } catch {
            transaction.ended()
            rollback()
            throw error
        }
        do throws(SQLiteDatabaseError) {
            try writePending(try writeHandle(), endingRun: true)
            if transaction.failure == nil { try applyRetention(to: retainedPaths, handle: try writeHandle()) }
        } catch {
            // The transaction's failure now (writePending recorded it): thrown below.
            transaction.failed(error)
        }
        if let failure = transaction.ended() {
            rollback()
            throw failure
        }
        do {
            try execute(statements.commit)
        } catch {
            rollback()
            throw error
        }
        return result
    }

    private func runSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        if let failure = transaction.failure { throw failure }
        do {
            // Pending writes and their run belong before the savepoint: a rollback to it
            // must keep them.
            try writePending(try writeHandle(), endingRun: true)
            try execute(statements.savepoint)
        } catch {
            transaction.failed(error)
            throw error
        }
        transaction.enteredSavepoint()
        defer { transaction.leftSavepoint() }
        let result: Result
        do {
            result = try body()
        } catch {
            // Undo the inner writes only; the outer batch decides about the rest. After a
            // failed write, the whole transaction is lost anyway (its failure stays).
            if transaction.failure == nil {
                do {
                    try execute(statements.rollbackToSavepoint)
                    try execute(statements.releaseSavepoint)
                } catch let failure {
                    transaction.failed(failure)
                }
                // Rows written since the savepoint are gone: caches forget what they learned.
                transaction.rolledBack()
            }
            throw error
        }
        if let failure = transaction.failure { throw failure }
        do {
            try writePending(try writeHandle(), endingRun: true)
            try execute(statements.releaseSavepoint)
        } catch {
            transaction.failed(error)
            throw error
        }
        return result
    }
}

/// Batches and read transactions roll back when they throw (see ``TransactionState``).
extension SQLiteDatabase: RollbackTrackingDatabase {
    package var rollbackMark: RollbackMark? {
        locked {
            // A read transaction that wrote nothing holds nothing to take back.
            let wrote = transaction.inBatch && (!pendingWrites.isEmpty || (try? writeHandle()).map { sqlite3_txn_state($0, nil) == SQLITE_TXN_WRITE } ?? false)
            return RollbackMark(mayRollBack: transaction.inBatch, holdsUncommittedWrites: wrote, rollbacks: transaction.rollbacks)
        }
    }
}
