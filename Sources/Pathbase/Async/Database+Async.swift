extension Database where Self: Sendable {

    /// Runs `body` off the task threads, in one batch where the database has batches, and
    /// returns its result.
    ///
    /// ```swift
    /// let count = try await database.write { db in
    ///     for (offset, name) in ["Ann", "Ben"].enumerated() {
    ///         Person.create(in: db, id: 100 + offset, name: name)
    ///     }
    ///     return db.all(of: Person.self).count
    /// }
    /// ```
    ///
    /// `body` runs on a thread of Pathbase's database work queue, never on the cooperative
    /// thread pool, so awaiting it does not stall other tasks while the database reads or
    /// writes its file. On a database with batches (`SQLiteDatabase`, in-memory history
    /// databases, wrappers of them) every write of `body` is stored, or none if it throws;
    /// elsewhere writes are made one by one. A task cancelled before the write starts throws
    /// `CancellationError` and writes nothing; a started write runs to its end.
    ///
    /// `db` is this database. Model handles made in `body` may be returned: the caller
    /// gets them (they are not `Sendable`, so keep them in one task).
    @discardableResult
    public func write<Result>(_ body: @escaping @Sendable (Self) throws -> sending Result) async throws -> sending Result {
        try await BlockingWork.run { [self] () throws -> sending Result in
            try inBatchIfSupported { try body(self) }
        }
    }

    /// Runs `body` off the task threads, in one read transaction where the database has
    /// them, and returns its result.
    ///
    /// ```swift
    /// let names = try await database.read { db in db.all(of: Person.self).map(\.name) }
    /// ```
    ///
    /// On `SQLiteDatabase` (and wrappers showing its current state) the reads of `body`
    /// see one state of the file and share one transaction (see
    /// `ReadTransactionDatabase`). `body` runs on a thread of Pathbase's database work
    /// queue, as for ``write(_:)``. Write in ``write(_:)``, not here.
    public func read<Result>(_ body: @escaping @Sendable (Self) throws -> sending Result) async throws -> sending Result {
        try await BlockingWork.run { [self] () throws -> sending Result in
            try inReadIfSupported { try body(self) }
        }
    }
}
