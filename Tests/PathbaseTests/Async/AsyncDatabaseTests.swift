import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("Async: write and read off the task threads")
struct AsyncDatabaseTests {

    private struct ImportFailed: Error {}

    @Test("write stores everything its body writes, and returns the body's result")
    func writeReturns() async throws {
        let database = SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        let count = try await database.write { db in
            for id in 1 ... 20 { AsyncTrack.create(in: db, id: id, title: "track \(id)") }
            return db.all(of: AsyncTrack.self).count
        }
        #expect(count == 20)
        let titles = try await database.read { db in db.all(of: AsyncTrack.self).map(\.title).sorted() }
        #expect(titles.count == 20 && titles.first == "track 1")
    }

    @Test("A throwing write keeps none of its writes where the database has batches")
    func failingWriteIsAllOrNothing() async throws {
        let database = SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        await #expect(throws: ImportFailed.self) {
            try await database.write { db in
                AsyncTrack.create(in: db, id: 1, title: "half")
                throw ImportFailed()
            }
        }
        let stored: AsyncTrack? = database.get(id: 1)
        #expect(stored == nil)
    }

    @Test("read returns model handles the caller can use")
    func readReturnsModels() async throws {
        let database = InMemoryDatabase()
        AsyncTrack.create(in: database, id: 3, title: "three")
        let track = try await database.read { db in db.active(id: 3, of: AsyncTrack.self) }
        #expect(track?.title == "three")
    }

    @Test("read through a wrapper sees one state of the SQLite file")
    func readFindsTransactionThroughWrappers() async throws {
        let path = SQLiteTestFiles.newPath()
        let file = SQLiteTestFiles.makeDatabase(path: path)
        let other = SQLiteTestFiles.makeDatabase(path: path) // another connection
        let wrapped = ObservedDatabase(wrapping: file)
        AsyncTrack.create(in: file, id: 1, title: "before")
        let titles = try await wrapped.read { db in
            let first = db.get(id: 1, of: AsyncTrack.self)?.title
            other.get(id: 1, of: AsyncTrack.self)?.title = "after" // committed by the other connection
            return [first, db.get(id: 1, of: AsyncTrack.self)?.title]
        }
        #expect(titles == ["before", "before"])
        #expect(file.get(id: 1, of: AsyncTrack.self)?.title == "after")
    }

    @Test("A cancelled task does not start its write")
    func cancelledWriteDoesNothing() async throws {
        let database = InMemoryDatabase()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await database.write { db in AsyncTrack.create(in: db, id: 9, title: "late").id }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(database.get(id: 9, of: AsyncTrack.self) == nil)
    }

    @Test("Many tasks writing and reading at once: every increment is kept", arguments: [false, true])
    func stress(onFile: Bool) async throws {
        let database = SQLiteTestFiles.makeDatabase(path: onFile ? SQLiteTestFiles.newPath() : nil)
        let counter = ObservedDatabase(wrapping: database)
        AsyncTrack.create(in: counter, id: 1, title: "counter")
        let tasks = 8, increments = 50
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0 ..< tasks {
                group.addTask {
                    for _ in 0 ..< increments {
                        try await counter.write { db in
                            if let track = db.get(id: 1, of: AsyncTrack.self) { track.plays += 1 }
                        }
                        let plays = try await counter.read { db in db.get(id: 1, of: AsyncTrack.self)?.plays ?? -1 }
                        #expect(plays >= 1 && plays <= tasks * increments)
                    }
                }
            }
            try await group.waitForAll()
        }
        let plays = try await counter.read { db in db.get(id: 1, of: AsyncTrack.self)?.plays }
        #expect(plays == tasks * increments)
    }
}
