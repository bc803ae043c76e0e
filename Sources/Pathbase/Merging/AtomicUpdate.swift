import Foundation

/// A read-modify-write of a merged property (`likes += 1`, `tags.insert(x)`, a pulled
/// state joined with the stored one), run so that no other write to the same database lands
/// between its read and its write: two threads incrementing a counter at once both count,
/// and a page pulled meanwhile is not overwritten by a join made without it.
///
/// It runs under a recursive lock of the storage under the database's wrappers (which pulled
/// records take too), inside a batch where the database has batches: on SQLite the batch
/// holds the connection against other threads and the file's write lock against other
/// processes (inside a batch, it joins it). Locks are always taken batch first, then storage.
enum AtomicUpdate {

    /// Runs `body` atomically on `database` (see above), as one ``WriteGroup``.
    static func run(on database: any Database, _ body: () -> Void) {
        // The storage's lock also inside a batch: a wrapper's batch (UndoableDatabase's)
        // excludes writes through that wrapper only, not records applied to its base.
        let storageLock = lock(of: database)
        WriteGroup.run(on: database) { storageLock.withLock(body) }
    }

    /// One of a fixed set of recursive locks, chosen by the storage under `database`'s
    /// wrappers, so that every handle on the same data takes the same one.
    static func lock(of database: any Database) -> NSRecursiveLock {
        locks[abs(ObjectIdentifier(database.storage).hashValue % locks.count)]
    }

    private static let locks: [NSRecursiveLock] = (0 ..< 64).map { _ in NSRecursiveLock() }
}

/// Runs a merged property's read-modify-write atomically, for generated code (see
/// `AtomicUpdate`).
public func _$atomically(on database: any Database, _ body: () -> Void) {
    AtomicUpdate.run(on: database, body)
}
