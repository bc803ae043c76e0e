/// A database whose reads are cheaper grouped in one read transaction (`SQLiteDatabase`:
/// one shared-memory lock for all of them instead of one per read).
///
/// Code that reads many values at once — a collection decoding the structs of a query —
/// groups them with ``Database/inReadIfSupported(_:)``.
package protocol ReadTransactionDatabase: Database {

    /// Runs `body` in one read transaction (joining a batch that is running).
    func read<Result>(_ body: () throws -> Result) throws -> Result
}

extension Database {

    /// Runs `body` in one read transaction where this database (or the one a wrapper reads
    /// through) supports it, else directly.
    package func inReadIfSupported<Result>(_ body: () throws -> Result) throws -> Result {
        if let reading = readTransactionDatabase {
            return try reading.read(body)
        }
        return try body()
    }
}
