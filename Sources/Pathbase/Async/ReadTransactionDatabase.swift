/// A database that can run many reads as one read transaction, seeing one state of its
/// storage.
///
/// `SQLiteDatabase` is one; ``Database/read(_:)`` (async) finds it through wrappers:
///
/// ```swift
/// let names = try await database.read { db in db.all(of: Person.self).map(\.name) }
/// ```
///
/// Conform a database of your own if it has cheaper or consistent grouped reads. A write
/// inside `body` may turn the transaction into a write transaction; write in a batch.
public protocol ReadTransactionDatabase: Database {

    /// Runs `body` in one read transaction and returns what it returns.
    func read<Result>(_ body: () throws -> Result) throws -> Result
}

extension Database {

    /// This database, or the database it shows the current state of, as one that runs read
    /// transactions; `nil` if reads are not grouped.
    var readTransactionDatabase: (any ReadTransactionDatabase)? {
        if let reads = self as? any ReadTransactionDatabase { return reads }
        if let erased = self as? any ErasedDatabaseWrapper { return erased.erasedBase.readTransactionDatabase }
        if let wrapper = self as? any DatabaseWrapper, wrapper.showsBaseCurrentState {
            return wrapper.base.readTransactionDatabase
        }
        return nil
    }

    /// Runs `body` in one read transaction where the database has them, else directly.
    func inReadTransactionIfSupported<Result>(_ body: () throws -> Result) throws -> Result {
        if let reads = readTransactionDatabase {
            return try reads.read(body)
        }
        return try body()
    }
}
