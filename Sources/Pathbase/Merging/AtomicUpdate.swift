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

    /// Runs `body` atomically on `database` (see above). A failed batch goes where a failed
    /// `set` goes: to the database's error handler, or, inside a batch, out of that batch.
    static func run(on database: any Database, _ body: () -> Void) {
        // The storage's lock also inside a batch: a wrapper's batch (UndoableDatabase's)
        // excludes writes through that wrapper only, not records applied to its base.
        let storageLock = lock(of: database)
        guard let batches = database.batchDatabase else {
            storageLock.withLock(body)
            return
        }
        do {
            try batches.batch { storageLock.withLock(body) }
        } catch {
            (database.storage as? any WriteFailureReporting)?.reportWriteFailure(error)
        }
    }

    /// One of a fixed set of recursive locks, chosen by the storage under `database`'s
    /// wrappers, so that every handle on the same data takes the same one.
    static func lock(of database: any Database) -> NSRecursiveLock {
        locks[abs(ObjectIdentifier(database.storage).hashValue % locks.count)]
    }

    private static let locks: [NSRecursiveLock] = (0 ..< 64).map { _ in NSRecursiveLock() }
}

/// A database whose non-throwing writes report failures somewhere (SQLite's error handler):
/// where a failed atomic update outside a batch goes.
package protocol WriteFailureReporting: AnyObject {

    /// Reports `error` as a failed non-throwing write would be, unless a batch is under way
    /// (which then throws it itself).
    func reportWriteFailure(_ error: any Error)
}

/// Runs a merged property's read-modify-write atomically, for generated code (see
/// `AtomicUpdate`).
public func _$atomically(on database: any Database, _ body: () -> Void) {
    AtomicUpdate.run(on: database, body)
}
