import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: opening bad files throws a typed error and changes nothing")
struct OpeningTests {

    /// Opens `path`, expects `expected`, and checks the file is byte for byte unchanged.
    private func expectRejected(_ path: String, sourceLocation: SourceLocation = #_sourceLocation, _ matches: (SQLiteDatabaseError) -> Bool) {
        let before = FileManager.default.contents(atPath: path)
        do {
            _ = try SQLiteDatabase(path: path)
            Issue.record("opening \(path) did not throw", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "unexpected error \(error)", sourceLocation: sourceLocation)
            #expect(!error.description.isEmpty)
        }
        #expect(FileManager.default.contents(atPath: path) == before, "the file changed", sourceLocation: sourceLocation)
    }

    @Test("A text file is not a database")
    func textFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("notes.txt")
        try Data(String(repeating: "Some notes, not a database.\n", count: 200).utf8).write(to: URL(fileURLWithPath: path))
        expectRejected(path) { $0 == .notADatabase(path: path) }
    }

    @Test("Random bytes are not a database", arguments: [7, 100, 4096, 65536])
    func randomBytes(count: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("random.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        expectRejected(path) { $0 == .notADatabase(path: path) }
    }

    /// A closed Pathbase file with some data.
    private func makePathbaseFile(_ path: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.batch {
            for id in 1 ... 2000 {
                Item.create(in: database, id: id, title: String(repeating: "title \(id) ", count: 5), count: id)
            }
        }
        database.close()
    }

    @Test("A truncated Pathbase file is corrupt", arguments: [50, 1000, 4096 * 3 + 17, -4096])
    func truncated(length: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        try makePathbaseFile(path)
        let data = try #require(FileManager.default.contents(atPath: path))
        let kept = length > 0 ? length : data.count + length
        try data.prefix(kept).write(to: URL(fileURLWithPath: path))
        expectRejected(path) { error in
            if case .corrupt = error { return true }
            return false
        }
    }

    @Test("A Pathbase file with damaged pages is corrupt")
    func damagedPages() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        try makePathbaseFile(path)
        var data = try #require(FileManager.default.contents(atPath: path))
        // Overwrite everything after the first page: the schema and every table.
        for index in 4096 ..< data.count { data[index] = 0xA5 }
        try data.write(to: URL(fileURLWithPath: path))
        expectRejected(path) { error in
            if case .corrupt = error { return true }
            return false
        }
    }

    @Test("Another application's SQLite database is rejected, not adopted")
    func foreignDatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("other.sqlite")
        do {
            let queue = try rawQueue(path: path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
            }
            try queue.close()
        }
        expectRejected(path) { $0 == .notPathbase(path: path) }
    }

    @Test("An SQLite database without tables is adopted")
    func emptyDatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("empty.sqlite")
        do {
            let queue = try rawQueue(path: path)
            try queue.write { db in try db.execute(sql: "PRAGMA user_version = 0") }
            try queue.close()
        }
        let database = try SQLiteDatabase(path: path)
        Item.create(in: database, id: 1, title: "adopted")
        #expect(database.all(of: Item.self).count == 1)
    }

    @Test("An empty file becomes a new database")
    func emptyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let database = try SQLiteDatabase(path: path)
        Item.create(in: database, id: 1, title: "new")
        #expect(database.all(of: Item.self).count == 1)
    }

    @Test("A file written by a newer format version is rejected")
    func newerFormat() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        try makePathbaseFile(path)
        do {
            let queue = try rawQueue(path: path)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 99") }
            try queue.close()
        }
        expectRejected(path) { error in
            if case .newerFormat(path, 99, let supported) = error { return supported < 99 }
            return false
        }
    }

    @Test("A directory or an unreachable path can't be opened")
    func unreachable() throws {
        let directory = TemporaryDirectory()
        for path in [directory.path, directory.path + "/missing/dir/file.sqlite"] {
            let error = #expect(throws: SQLiteDatabaseError.self) { _ = try SQLiteDatabase(path: path) }
            guard case .cannotOpen(path, let reason)? = error else {
                Issue.record("\(path): expected cannotOpen, got \(String(describing: error))")
                continue
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test("Operations on a closed database report .closed; close is idempotent")
    func closed() throws {
        let log = ErrorLog()
        let database = try SQLiteDatabase(options: .init(errorHandler: log.handler))
        database.set(1, for: Path(model: 1, instance: 1, property: 1))
        database.close()
        database.close()
        #expect(database.get(Path(model: 1, instance: 1, property: 1)) as Int? == nil)
        database.set(2, for: Path(model: 1, instance: 1, property: 1))
        #expect(log.errors == [.closed, .closed])
        #expect(throws: SQLiteDatabaseError.closed) { try database.batch {} }
        #expect(throws: SQLiteDatabaseError.closed) {
            let _: Timestamped<Int>? = try database.fetch(Path(model: 1, instance: 1, property: 1))
        }
    }
}
