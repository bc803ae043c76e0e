import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("SQLiteDatabase: batches are all-or-nothing")
struct BatchTests {

    @Test("A batch stores all its writes and returns the body's result")
    func batchCommits() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            let count = try database.batch { () -> Int in
                for id in 1 ... 100 {
                    Item.create(in: database, id: id, title: "item \(id)", count: id)
                }
                // The body sees its own writes.
                return database.all(of: Item.self).count
            }
            #expect(count == 100)
        }
        let database = try SQLiteDatabase(path: path)
        #expect(database.all(of: Item.self).count == 100)
        #expect(database.get(id: 42, of: Item.self)?.title == "item 42")
    }

    @Test("A batch whose body throws stores nothing, also after reopening")
    func batchRollsBack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            Item.create(in: database, id: 1, title: "before")
            #expect(throws: TestError.self) {
                try database.batch {
                    Item.create(in: database, id: 2, title: "new")
                    database.get(id: 1, of: Item.self)?.title = "changed"
                    database.set(Address(street: "x", number: 1), for: Path(model: 9, instance: 1, property: 1))
                    throw TestError()
                }
            }
            #expect(database.get(id: 2, of: Item.self) == nil)
            #expect(database.get(id: 1, of: Item.self)?.title == "before")
            // Item 1's records and Item's description in the file's catalog, from its first create.
            #expect(database.records(after: nil).count == 4)
            // The database is still usable, including the Codable type that was rolled back.
            database.set(Address(street: "y", number: 2), for: Path(model: 9, instance: 1, property: 1))
        }
        let database = try SQLiteDatabase(path: path)
        #expect(database.get(id: 2, of: Item.self) == nil)
        #expect(database.get(id: 1, of: Item.self)?.title == "before")
        #expect(database.get(Path(model: 9, instance: 1, property: 1)) as Address? == Address(street: "y", number: 2))
    }

    @Test("A nested batch joins the outer one; its failure undoes only its own writes")
    func nestedBatch() throws {
        let database = try SQLiteDatabase()
        try database.batch {
            Item.create(in: database, id: 1, title: "outer")
            try database.batch {
                Item.create(in: database, id: 2, title: "inner")
            }
            do {
                try database.batch {
                    Item.create(in: database, id: 3, title: "failing inner")
                    throw TestError()
                }
            } catch is TestError {}
        }
        #expect(database.all(of: Item.self).map(\.id).sorted() == [1, 2])

        // The outer batch failing undoes the inner one too.
        #expect(throws: TestError.self) {
            try database.batch {
                try database.batch { Item.create(in: database, id: 4, title: "inner") }
                throw TestError()
            }
        }
        #expect(database.get(id: 4, of: Item.self) == nil)
    }

    @Test("A write that fails inside a batch makes the whole batch throw and store nothing")
    func failedWriteFailsBatch() throws {
        struct Unencodable: Codable {
            func encode(to encoder: any Encoder) throws { throw TestError() }
            init() {}
            init(from decoder: any Decoder) throws {}
        }
        let log = ErrorLog()
        let database = try SQLiteDatabase(options: .init(errorHandler: log.handler))
        let batchError = #expect(throws: SQLiteDatabaseError.self) {
            try database.batch {
                Item.create(in: database, id: 1, title: "kept?")
                database.set(Unencodable(), for: Path(model: 9, instance: 1, property: 1))
                Item.create(in: database, id: 2, title: "kept?")
            }
        }
        // The README's "A value that can't be encoded": valueEncoding, naming the path.
        guard case .valueEncoding(let failedPath, _)? = batchError else {
            Issue.record("expected valueEncoding, got \(String(describing: batchError))")
            return
        }
        #expect(failedPath == Path(model: 9, instance: 1, property: 1))
        #expect(database.all(of: Item.self).isEmpty)
        // Thrown by the batch, not also reported.
        #expect(log.errors.isEmpty)

        // Outside a batch, the failed write is reported and nothing is stored.
        database.set(Unencodable(), for: Path(model: 9, instance: 1, property: 1))
        #expect(log.errors.count == 1)
        #expect(database.records(after: nil).isEmpty)

        // The throwing variant throws, and inside a batch leaves the rest of it alone.
        try database.batch {
            Item.create(in: database, id: 3, title: "kept")
            let storeError = #expect(throws: SQLiteDatabaseError.self) {
                try database.store(Unencodable(), for: Path(model: 9, instance: 1, property: 1))
            }
            #expect(errorCase(of: storeError) == "valueEncoding", "\(String(describing: storeError))")
        }
        #expect(database.all(of: Item.self).map(\.id) == [3])
    }

    @Test("Other threads wait for a batch, and see all of it or none of it")
    func otherThreadsWait() async throws {
        let database = try SQLiteDatabase()
        let halfway = Handoff<Bool>()
        let reading = Handoff<ThreadProbe>()
        let seen = Handoff<Int>()
        let reader = TestThread {
            guard halfway.take() != nil else { return }
            reading.put(ThreadProbe.current())
            seen.put(database.all(of: Item.self).count)
        }
        try database.batch {
            for id in 1 ... 100 {
                Item.create(in: database, id: id, title: "item")
            }
            halfway.put(true)
            // The reader is inside its read now: it must wait for the batch, not see half of
            // it. Seeing the thread blocked proves that the read really overlapped the batch.
            let probe = try #require(reading.take(), "the reader never started its read")
            #expect(waitUntil { probe.isWaiting || reader.isFinished }, "the reader neither blocked nor finished")
            #expect(!reader.isFinished, "the reader read during the batch")
            for id in 101 ... 200 {
                Item.create(in: database, id: id, title: "item")
            }
        }
        #expect(seen.take() == 200)
        #expect(await reader.join())
    }

    @Test("Concurrent writers from many threads lose nothing")
    func concurrentWriters() async throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: 4) { thread in
            for index in 0 ..< 50 {
                let id = thread * 1000 + index
                if index.isMultiple(of: 2) {
                    Item.create(in: database, id: id, title: "single")
                } else {
                    do {
                        try database.batch { Item.create(in: database, id: id, title: "batched") }
                    } catch {
                        failures.withLock { $0.append("\(id): \(error)") }
                    }
                }
            }
        }
        #expect(finished)
        #expect(failures.current.isEmpty)
        #expect(database.all(of: Item.self).count == 200)
    }
}
