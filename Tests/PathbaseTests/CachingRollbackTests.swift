import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// A cache must not keep a value that the database under it takes back afterwards, also when
/// the cache does not run the batch: one opened on the wrapped database directly, an undoable
/// batch of the database under it, an editing context's discard.
@Suite("CachedDatabase: nothing cached that the wrapped database takes back")
struct CachingRollbackTests {

    private struct Failure: Error {}

    private static let path = Path(model: 1748, instance: 1, property: 1)

    /// Writes 2 over 1 through the cache, and reads it back, inside a batch of the wrapped
    /// database that throws; afterwards the cache must answer 1 again.
    private func rolledBackWrite(cached: some Database, batch: (() throws -> Void) throws -> Void) throws {
        cached.set(1, for: Self.path)
        #expect(cached.get(Self.path) as Int? == 1)
        #expect(throws: Failure.self) {
            try batch {
                cached.set(2, for: Self.path)
                #expect(cached.get(Self.path) as Int? == 2)
                throw Failure()
            }
        }
        #expect(cached.get(Self.path) as Int? == 1)
    }

    @Test("A batch opened on the SQLite file under the cache rolls back")
    func sqliteBatchOnTheBase() throws {
        let sqlite = try SQLiteDatabase()
        let cached = CachedDatabase(wrapping: sqlite, cache: MaximumCountCache(maxCount: 10))
        try rolledBackWrite(cached: cached) { body in try sqlite.batch(body) }
    }

    @Test("A nested batch on the SQLite file rolls back inside one that commits")
    func sqliteNestedBatchOnTheBase() throws {
        let sqlite = try SQLiteDatabase()
        let cached = CachedDatabase(wrapping: sqlite, cache: MaximumCountCache(maxCount: 10))
        try sqlite.batch {
            try rolledBackWrite(cached: cached) { body in try sqlite.batch(body) }
        }
        #expect(cached.get(Self.path) as Int? == 1)
    }

    @Test("An undoable batch of the database under the cache throws", arguments: [false, true])
    func undoableBatchOnTheBase(overSQLite: Bool) throws {
        func check(_ base: some Database) throws {
            let undoable = UndoableDatabase(wrapping: base)
            let cached = CachedDatabase(wrapping: undoable, cache: MaximumCountCache(maxCount: 10))
            try rolledBackWrite(cached: cached) { body in try undoable.batch(body) }
        }
        if overSQLite { try check(try SQLiteDatabase()) } else { try check(InMemoryDatabase()) }
    }

    @Test("An undoable batch over the cache withdraws its records from the in-memory database under it")
    func undoableBatchWithdrawsUnderTheCache() throws {
        let cached = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 10))
        let undoable = UndoableDatabase(wrapping: cached)
        try rolledBackWrite(cached: undoable) { body in try undoable.batch(body) }
        #expect(cached.records().count == 1)
    }

    @Test("An editing context under the cache discards its edits")
    func editingContextDiscards() {
        let database = InMemoryDatabase()
        database.set(1, for: Self.path)
        let context = database.createEditingContext()
        let cached = CachedDatabase(wrapping: context, cache: MaximumCountCache(maxCount: 10))
        cached.set(2, for: Self.path)
        #expect(cached.get(Self.path) as Int? == 2)
        context.discardChanges()
        #expect(cached.get(Self.path) as Int? == 1)
    }

    @Test("Reads in a read transaction that writes nothing are cached")
    func readTransactionsStillCache() throws {
        let sqlite = try SQLiteDatabase()
        let cache = MaximumCountCache(maxCount: 10)
        let cached = CachedDatabase(wrapping: sqlite, cache: cache)
        sqlite.set(1, for: Self.path)
        try sqlite.read { _ = cached.get(Self.path) as Int? }
        #expect(cache.value(at: Self.path, as: Int.self) == 1)
        // Once the transaction wrote, what it reads may still be taken back.
        let other = Path(model: 1748, instance: 2, property: 1)
        sqlite.set(5, for: other)
        cache.removeAll()
        try sqlite.read {
            sqlite.set(3, for: Self.path)
            _ = cached.get(other) as Int?
        }
        #expect(cache.value(at: other, as: Int.self) == nil)
    }
}
