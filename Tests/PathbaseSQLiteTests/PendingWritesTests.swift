import Foundation
import GRDBSQLite
import Pathbase
@testable import PathbaseSQLite
import Testing

/// A batch keeps plain writes pending and stores them with multi-row statements
/// (`PendingWrites`): every read inside the batch must see them, savepoints and rollbacks
/// must treat them as written, and newest-wins must hold row by row.
@Suite("SQLiteDatabase: a batch's pending writes")
struct PendingWritesTests {

    @Test("Reads inside a batch see its pending writes: get, listing, queries, history, records")
    func readsSeePendingWrites() throws {
        let database = try SQLiteDatabase()
        try database.batch {
            let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
            #expect(database.pendingWrites.isEmpty == false)
            #expect(alice.name == "Alice")
            #expect(database.pendingWrites.isEmpty)
            alice.age = 31
            #expect(database.all(of: Person.self).map(\.age) == [31])
            alice.age = 32
            #expect(database.fetch(QueryDescriptor<Person>(where: \.age == 32)).map(\.id) == [1])
            alice.age = 33
            #expect(database.history(of: alice.path(of: .age), as: Int.self).map(\.value) == [30, 31, 32, 33])
            alice.name = "Alicia"
            #expect(database.records(after: nil).contains { $0.value as? String == "Alicia" })
        }
        #expect(database.active(id: 1, of: Person.self)?.name == "Alicia")
    }

    @Test("More writes than one statement holds are all stored, in order, and survive reopening")
    func manyWritesInOneBatch() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("many.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.batch {
                for id in 1 ... 100 {
                    Item.create(in: database, id: id, title: "item \(id)", count: id)
                }
                // The same path 40 times: the last write is current, every one is history.
                for count in 1 ... 40 {
                    database.set(count, for: Path(model: 2, instance: 1, property: 2))
                }
            }
            database.close()
        }
        let database = try SQLiteDatabase(path: path)
        let items = database.all(of: Item.self).sorted { $0.id < $1.id }
        #expect(items.count == 100)
        #expect(items.dropFirst().allSatisfy { $0.title == "item \($0.id)" && $0.count == $0.id })
        #expect(items.first?.count == 40)
        #expect(database.history(of: Path(model: 2, instance: 1, property: 2), as: Int.self).map(\.value) == [1] + Array(1 ... 40))
    }

    @Test("Newest wins row by row: an older write pending after a newer one of the same path does not replace it")
    func newestWinsWithinOneStatement() throws {
        let database = try SQLiteDatabase()
        let path = Path(model: 2, instance: 7, property: 1)
        let older = Timestamp(time: 1_000, counter: 0, replica: 1)
        let newer = Timestamp(time: 2_000, counter: 0, replica: 1)
        try database.batch {
            database.set("newer", for: path, timestamp: newer)
            database.set("older", for: path, timestamp: older)
            database.set("newer", for: path, timestamp: newer) // the same record again: ignored
        }
        let current: String? = database.get(path)
        #expect(current == "newer")
        #expect(database.records(at: path).map(\.timestamp) == [older, newer])
    }

    @Test("Statuses and reference lists wait too: a read of another path leaves them waiting; queries and inverse lookups see them; a path's newest status is the one kept")
    func statusesAndListsWait() throws {
        let database = try SQLiteDatabase()
        let seed = Person.create(in: database, id: 9, name: "Seed", age: 1)
        // Queried once: the active instances are mirrored in memory and must follow the batch.
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 0)).map(\.id) == [9])
        try database.batch {
            let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
            let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
            let carol = Person.create(in: database, id: 3, name: "Carol", age: 50)
            let unrelated: String? = database.get(Path(model: 2, instance: 99, property: 1))
            #expect(unrelated == nil)
            #expect(!database.pendingWrites.isEmpty)
            alice.friends = [bob]
            alice.friends = [carol]
            bob.delete()
            seed.delete()
            #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 0)).map(\.id) == [1, 3])
            #expect(carol.referrers(through: \Person.friends).map(\.id) == [1])
            #expect(bob.referrers(through: \Person.friends).isEmpty)
        }
        // Synced statuses arriving newest first: the older one waits beside it and loses.
        let carolStatus = Path.status(model: Person.modelId, instance: 3)
        let now = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000, counter: 0, replica: 7)
        try database.batch {
            database.set(InstanceStatus.deleted, for: carolStatus, timestamp: Timestamp(time: now.time + 1, counter: 0, replica: 7))
            database.set(InstanceStatus.created, for: carolStatus, timestamp: now)
        }
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 0)).map(\.id) == [1])
        #expect(database.all(of: Person.self).map(\.id) == [1])
        // Reopened mirrors agree with the file.
        let again = try database.batch { database.fetch(QueryDescriptor<Person>(where: \.age >= 0)).map(\.id) }
        #expect(again == [1])
    }

    @Test("Reference lists waiting together: the newest list of a path is the one inverse lookups see, also after a value of another type")
    func listsWaitingTogether() throws {
        let database = try SQLiteDatabase()
        let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
        let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
        let carol = Person.create(in: database, id: 3, name: "Carol", age: 50)
        let friends = alice.path(of: .friends)
        let later = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000, counter: 0, replica: 7)
        let earlier = Timestamp(time: later.time - 1, counter: 0, replica: 7)
        try database.batch {
            database.set([3], for: friends, timestamp: later)
            database.set([2], for: friends, timestamp: earlier)
        }
        #expect(carol.referrers(through: \Person.friends).map(\.id) == [1])
        #expect(bob.referrers(through: \Person.friends).isEmpty)
        // A newer value of another type in the same batch as a list: no referrers remain.
        try database.batch {
            database.set([2], for: friends, timestamp: Timestamp(time: later.time + 1, counter: 0, replica: 7))
            database.set("not a list", for: friends, timestamp: Timestamp(time: later.time + 2, counter: 0, replica: 7))
        }
        #expect(bob.referrers(through: \Person.friends).isEmpty)
        #expect(carol.referrers(through: \Person.friends).isEmpty)
    }

    @Test("A nested batch that throws undoes only its writes; the outer batch's pending writes stay")
    func savepointKeepsOuterPendingWrites() throws {
        let database = try SQLiteDatabase()
        try database.batch {
            Item.create(in: database, id: 1, title: "outer", count: 1)
            #expect(throws: TestError.self) {
                try database.batch {
                    Item.create(in: database, id: 2, title: "inner", count: 2)
                    database.set(99, for: Path(model: 2, instance: 1, property: 2))
                    throw TestError()
                }
            }
            database.set("outer again", for: Path(model: 2, instance: 1, property: 1))
        }
        let items = database.all(of: Item.self)
        #expect(items.map(\.id) == [1])
        #expect(items.first?.title == "outer again")
        #expect(items.first?.count == 1)
    }

    @Test("A batch that throws stores none of its pending writes")
    func throwingBatchDropsPendingWrites() throws {
        let database = try SQLiteDatabase()
        #expect(throws: TestError.self) {
            try database.batch {
                Item.create(in: database, id: 1, title: "gone", count: 1)
                throw TestError()
            }
        }
        #expect(database.all(of: Item.self).isEmpty)
        #expect(database.records(after: nil).isEmpty)
        #expect(database.pendingWrites.isEmpty)
    }

    @Test("Pending writes that fail when stored (disk full) make the batch throw and store nothing")
    func failedPendingWritesFailTheBatch() throws {
        let log = ErrorLog()
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("full.sqlite"), options: .init(errorHandler: log.handler))
        Item.create(in: database, id: 1, title: "before", count: 1)
        // Cap the file at its current size: the next pages can't be allocated.
        let pages = try database.query("PRAGMA page_count", bind: { _ in }, row: { $0.int64(at: 0) }).first ?? 0
        _ = try database.query("PRAGMA max_page_count = \(pages)", bind: { _ in }, row: { $0.int64(at: 0) })
        let big = String(repeating: "x", count: 64 * 1024)
        var thrown: SQLiteDatabaseError?
        do {
            try database.batch {
                for id in 2 ... 5 { Item.create(in: database, id: id, title: big, count: id) }
            }
        } catch let error as SQLiteDatabaseError {
            thrown = error
        }
        #expect(thrown?.sqliteCode == SQLITE_FULL)
        #expect(database.all(of: Item.self).map(\.title) == ["before"])
        #expect(database.pendingWrites.isEmpty)
        #expect(log.errors.isEmpty)
    }
}
