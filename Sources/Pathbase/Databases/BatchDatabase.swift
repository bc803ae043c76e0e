/// A database that can apply many writes as one all-or-nothing unit.
///
/// Editing contexts commit through it, so a commit is either entirely stored or not at
/// all, also across a crash when the database is persistent:
///
/// ```swift
/// try database.batch {
///     order.status = "paid"
///     invoice.paid = true
/// }
/// ```
///
/// If `body` throws, none of its writes are kept and the error is rethrown. A batch
/// started inside another joins it.
public protocol BatchDatabase: Database {

    /// Runs `body` and keeps its writes to this database together, or none of them.
    func batch<Result>(_ body: () throws -> Result) throws -> Result
}
