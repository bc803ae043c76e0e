import Foundation
import GRDBSQLite
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: read { } runs many reads in one read transaction")
struct ReadTransactionTests {

    @Test("Reads in a read block see one state of the file while another connection writes")
    func snapshotWhileOthersWrite() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let database = try SQLiteDatabase(path: path)
        let other = try SQLiteDatabase(path: path)
        Item.create(in: database, id: 1, title: "first", count: 1)

        let (before, during) = try database.read { () -> (String?, String?) in
            let before = database.get(id: 1, of: Item.self)?.title
            // Not blocked by the read: the other connection commits at once.
            other.get(id: 1, of: Item.self)?.title = "changed"
            Item.create(in: other, id: 2, title: "new")
            #expect(other.get(id: 1, of: Item.self)?.title == "changed")
            return (before, database.get(id: 1, of: Item.self)?.title)
        }
        #expect(before == "first")
        #expect(during == "first")
        // After the block, this connection sees the other's writes.
        #expect(database.get(id: 1, of: Item.self)?.title == "changed")
        #expect(database.all(of: Item.self).map(\.id) == [1, 2])
    }

    @Test("A read block returns the body's result and rethrows its error")
    func resultAndErrors() throws {
        let database = try SQLiteDatabase()
        let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
        Person.create(in: database, id: 2, name: "Bob", age: 40)
        let ages = try database.read { database.all(of: Person.self).map(\.age).sorted() }
        #expect(ages == [30, 40])
        #expect(throws: TestError.self) {
            try database.read { () -> Int in
                _ = alice.name
                throw TestError()
            }
        }
        // The database is usable afterwards, in and out of batches.
        try database.batch { alice.age = 31 }
        #expect(alice.age == 31)
    }

    @Test("Writes in a read block are all-or-nothing, like a batch")
    func writesInside() throws {
        let database = try SQLiteDatabase()
        try database.read {
            Item.create(in: database, id: 1, title: "kept")
            #expect(database.get(id: 1, of: Item.self)?.title == "kept")
        }
        #expect(throws: TestError.self) {
            try database.read {
                Item.create(in: database, id: 2, title: "dropped")
                throw TestError()
            }
        }
        #expect(database.all(of: Item.self).map(\.id) == [1])
    }

    @Test("A write in a read block that began before another connection's commit throws and stores nothing")
    func staleWriteThrows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let log = ErrorLog()
        let database = try SQLiteDatabase(path: path, options: .init(busyTimeout: 0.1, errorHandler: log.handler))
        let other = try SQLiteDatabase(path: path)
        Item.create(in: database, id: 1, title: "first")
        let error = #expect(throws: SQLiteDatabaseError.self) {
            try database.read {
                _ = database.get(id: 1, of: Item.self)?.title
                Item.create(in: other, id: 2, title: "theirs")
                Item.create(in: database, id: 3, title: "mine")
            }
        }
        // SQLite's busy result ("locked by another process (or connection) … try again").
        #expect(error?.sqliteCode.map { $0 & 0xFF } == SQLITE_BUSY, "\(String(describing: error))")
        #expect(database.all(of: Item.self).map(\.id) == [1, 2])
        #expect(log.errors.isEmpty)
    }

    @Test("A read block inside a batch joins it")
    func insideBatch() throws {
        let database = try SQLiteDatabase()
        try database.batch {
            Item.create(in: database, id: 1, title: "outer")
            let titles = try database.read { database.all(of: Item.self).map(\.title) }
            #expect(titles == ["outer"])
            do {
                try database.read {
                    Item.create(in: database, id: 2, title: "inner")
                    throw TestError()
                }
            } catch is TestError {}
        }
        #expect(database.all(of: Item.self).map(\.id) == [1])
    }
}
