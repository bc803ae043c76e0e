import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

/// The write-coalescing VFS under every file an `SQLiteDatabase` writes: a commit's WAL
/// frames go to the file in one write, and nothing about what is stored or seen changes.
@Suite("SQLiteDatabase: each commit's WAL frames are written together")
struct WriteCoalescingTests {

    @Test("A commit of several pages is one write to the WAL")
    func oneWritePerCommit() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        // The first commit writes the WAL's header, which SQLite syncs on its own.
        try database.batch { Person.create(in: database, id: 1, name: "Alice", age: 30) }
        for id in 2 ... 20 {
            let before = try #require(database.walWritesMade)
            try database.batch {
                let person = Person.create(in: database, id: id, name: "Person \(id)", age: id)
                person.nickname = "P\(id)"
                person.tags = ["t\(id)"]
            }
            // Records, current values and their indexes: several pages, one write.
            #expect(try #require(database.walWritesMade) - before == 1)
        }
        let writesBefore = try #require(database.walWritesMade)
        database.set("Bob", for: Path(model: 1, instance: 2, property: 1))
        #expect(try #require(database.walWritesMade) - writesBefore == 1)
    }

    @Test("Another connection sees every commit as soon as it returns")
    func otherConnectionSeesEachCommit() throws {
        let directory = TemporaryDirectory()
        let writer = try SQLiteDatabase(path: directory.file())
        let reader = try SQLiteDatabase(path: directory.file())
        for id in 1 ... 200 {
            try writer.batch { Person.create(in: writer, id: id, name: "Person \(id)", age: id) }
            let name: String? = reader.get(Path(model: 1, instance: id, property: 1))
            #expect(name == "Person \(id)")
        }
        #expect(reader.all(of: Person.self).count == 200)
    }

    @Test("A commit larger than the write buffer, and a checkpoint, keep every value")
    func largeCommitAndCheckpoint() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let text = String(repeating: "x", count: 3000)
        do {
            let database = try SQLiteDatabase(path: path)
            // ≈ 3 MB of frames in one commit: many buffer lengths, and a checkpoint after it.
            try database.batch {
                for id in 1 ... 1000 { Person.create(in: database, id: id, name: "\(id) \(text)", age: id) }
            }
            for id in 1001 ... 1100 {
                try database.batch { Person.create(in: database, id: id, name: "\(id) \(text)", age: id) }
            }
            database.close()
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.checkIntegrity().isEmpty)
        #expect(reopened.all(of: Person.self).count == 1100)
        for id in [1, 500, 1000, 1001, 1100] {
            #expect(reopened.get(id: id, of: Person.self)?.name == "\(id) \(text)")
        }
    }

    @Test("Connections opened and writing on several threads at once, on one file and on several, lose nothing")
    func concurrentConnections() throws {
        let directory = TemporaryDirectory()
        let shared = directory.file("shared.sqlite")
        // Created first, so that the threads do not race to create its tables.
        try SQLiteDatabase(path: shared).close()
        let threads = 4
        let perThread = 40
        let ownFiles = (0 ..< threads).map { directory.file("own\($0).sqlite") }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                let own = try SQLiteDatabase(path: ownFiles[thread])
                let database = try SQLiteDatabase(path: shared)
                for step in 0 ..< perThread {
                    let id = thread * perThread + step
                    try database.batch { Person.create(in: database, id: id, name: "Person \(id)", age: thread) }
                    try own.batch { Person.create(in: own, id: step, name: "Own \(step)", age: thread) }
                }
                #expect(own.all(of: Person.self).count == perThread)
                database.close()
                own.close()
            } catch {
                Issue.record(error)
            }
        }
        let reader = try SQLiteDatabase(path: shared)
        #expect(Set(reader.all(of: Person.self).map(\.id)) == Set(0 ..< threads * perThread))
        #expect(try reader.checkIntegrity().isEmpty)
    }

    @Test("Files read only and databases in memory do not use it")
    func onlyWritableFiles() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            Person.create(in: database, id: 1, name: "Alice")
            #expect(database.walWritesMade != nil)
            database.close()
        }
        let readOnly = try SQLiteDatabase(path: path, options: SQLiteDatabase.Options(readOnly: true))
        #expect(readOnly.walWritesMade == nil)
        #expect(readOnly.get(id: 1, of: Person.self)?.name == "Alice")
        #expect(try SQLiteDatabase().walWritesMade == nil)
    }
}
