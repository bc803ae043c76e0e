/// Memory of an ``SQLiteDatabase`` that mirrors rows of its file: a cache that a rollback
/// must follow, or it would point at rows that no longer exist.
protocol RowMirror: AnyObject {
    /// Rows written since the rolled-back transaction or savepoint began are gone: forget
    /// whatever was learned about the file, to read it again when needed.
    func rowsRolledBack()
}

/// The transaction of one ``SQLiteDatabase`` connection: how deep batches are nested, the
/// first write that failed in it, and every in-memory mirror of rows, which it resets when
/// the transaction or one of its savepoints rolls back.
///
/// The one owner of this state, so that a new cache can't be forgotten on one of the
/// rollback paths (a failed outer batch, a failed nested batch, a failed single write,
/// pruning): it registers here once. Used while holding the database's lock.
final class TransactionState {

    /// How many batches are running: 0 outside a transaction, 1 in the outermost batch,
    /// more in nested ones (savepoints).
    /// Read by every read of a value: unchecked exclusivity, as the database's lock guards it.
    @exclusivity(unchecked) private(set) var depth = 0

    /// The first failed write of the running batch; the whole batch rolls back and throws it.
    private(set) var failure: SQLiteDatabaseError?

    private var mirrors: [any RowMirror] = []

    /// How many transactions and savepoints rolled back since the database was opened.
    private(set) var rollbacks: UInt64 = 0

    /// Whether a batch is running.
    var inBatch: Bool { depth > 0 }

    /// Makes `mirror` follow every rollback.
    func register(_ mirror: any RowMirror) {
        mirrors.append(mirror)
    }

    /// The outermost batch began.
    func began() {
        depth = 1
        failure = nil
    }

    /// The outermost batch ended (committed or rolled back); returns its failure, if any.
    @discardableResult
    func ended() -> SQLiteDatabaseError? {
        defer {
            depth = 0
            failure = nil
        }
        return failure
    }

    /// A nested batch began (its savepoint is set).
    func enteredSavepoint() {
        depth += 1
    }

    /// A nested batch ended.
    func leftSavepoint() {
        depth -= 1
    }

    /// A write of the running batch failed: the batch will roll back and throw the first one.
    func failed(_ error: SQLiteDatabaseError) {
        if failure == nil { failure = error }
    }

    /// The transaction or a savepoint rolled back: every mirror forgets what it learned.
    func rolledBack() {
        rollbacks &+= 1
        for mirror in mirrors { mirror.rowsRolledBack() }
    }
}
