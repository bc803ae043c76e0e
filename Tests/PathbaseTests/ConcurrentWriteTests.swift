import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 1000–1049.

@Model(id: 1000)
final class Counter {
    @Property(id: 1) var value: Int
    @Property(id: 2) var owner: Int
}

/// Many threads writing to one database at the same time lose no write.
///
/// Eight real threads (not tasks, which a small machine runs on two) start together at a
/// barrier. Each writes its own paths: half of its writes go to a column all threads share
/// (disjoint instance ids), half to a property only this thread writes (instance ids that
/// every thread also uses). Then every value is read back. `PATHBASE_STRESS_WRITES` sets the
/// writes per thread; the reliability stage raises it to 10^5.
@Suite("Concurrent writes")
struct ConcurrentWriteTests {

    static let threadCount = 8
    static let model: ModelKey = 1049

    /// Writes per thread: small for `swift test`, raised by the reliability stage.
    static func writesPerThread() throws -> Int {
        try StressSettings.count("PATHBASE_STRESS_WRITES", default: 10_000)
    }

    /// The path and value of write `index` of thread `thread`.
    static func write(_ index: Int, of thread: Int, writes: Int) -> (path: Path, value: Int) {
        let half = writes / 2
        if index < half {
            // Shared column, an instance range per thread.
            return (Path(model: model, instance: thread * half + index, property: 1), index * 10 + thread)
        }
        // A column per thread, the same instance ids in every thread.
        return (Path(model: model, instance: index - half, property: 100 + thread), -index - thread)
    }

    static func writeConcurrently<D: Database & Sendable>(into database: D, writes: Int) async {
        let finished = await TestThread.run(count: threadCount) { thread in
            for index in 0 ..< writes {
                let (path, value) = write(index, of: thread, writes: writes)
                database.set(value, for: path)
            }
        }
        #expect(finished, "a writer thread did not finish")
    }

    /// Returns the number of writes whose value does not read back.
    static func lostWrites(in database: some Database, writes: Int) -> Int {
        var lost = 0
        for thread in 0 ..< threadCount {
            for index in 0 ..< writes {
                let (path, value) = write(index, of: thread, writes: writes)
                let stored: Int? = database.get(path)
                if stored != value { lost += 1 }
            }
        }
        return lost
    }

    static func createConcurrently<D: Database & Sendable>(in database: D, perThread: Int) async {
        let finished = await TestThread.run(count: threadCount) { thread in
            for index in 0 ..< perThread {
                let counter = database.create(id: thread * perThread + index, of: Counter.self)
                counter.owner = thread
                counter.value += 1
            }
        }
        #expect(finished, "a creating thread did not finish")
    }

    /// Prints a figure of the reliability stage.
    static func report(_ what: String, writes: Int, lost: Int) {
        print("[reliability] \(what): \(threadCount) threads × \(writes) writes, \(lost) lost")
    }

    @Test("InMemoryDatabase keeps every concurrent write")
    func inMemoryDatabase() async throws {
        let writes = try Self.writesPerThread()
        let database = InMemoryDatabase()
        await Self.writeConcurrently(into: database, writes: writes)
        #expect(database.count == Self.threadCount * writes)
        let lost = Self.lostWrites(in: database, writes: writes)
        #expect(lost == 0)
        Self.report("InMemoryDatabase", writes: writes, lost: lost)
    }

    @Test("InMemoryHistoryDatabase keeps every concurrent write and its record")
    func inMemoryHistoryDatabase() async throws {
        let writes = try Self.writesPerThread()
        let database = InMemoryHistoryDatabase()
        await Self.writeConcurrently(into: database, writes: writes)
        let lost = Self.lostWrites(in: database, writes: writes)
        #expect(lost == 0)
        let records = database.records()
        #expect(records.count == Self.threadCount * writes)
        // Oldest first, and no two writes share a timestamp.
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        Self.report("InMemoryHistoryDatabase", writes: writes, lost: lost)
    }

    @Test("SQLiteDatabase in a WAL file keeps every concurrent write and its record")
    func sqliteFile() async throws {
        let writes = try Self.writesPerThread()
        let path = SQLiteTestFiles.newPath()
        let database = try SQLiteDatabase(path: path)
        await Self.writeConcurrently(into: database, writes: writes)
        let lost = Self.lostWrites(in: database, writes: writes)
        #expect(lost == 0)
        #expect(database.records(after: nil).count == Self.threadCount * writes)
        database.close()
        // And the same after reopening the file.
        let reopened = try SQLiteDatabase(path: path)
        #expect(Self.lostWrites(in: reopened, writes: writes) == 0)
        reopened.close()
        Self.report("SQLiteDatabase (WAL file)", writes: writes, lost: lost)
    }

    /// Eight threads add 1 to shared counters, each addition a read and a write in one batch,
    /// so no addition may overwrite another's; returns the additions that went missing.
    static func incrementConcurrently(_ database: some BatchDatabase & Sendable, additions: Int) async -> Int {
        let counters = (0 ..< 16).map { Path(model: model, instance: $0, property: 2) }
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: threadCount) { thread in
            for step in 0 ..< additions {
                let path = counters[(step + thread) % counters.count]
                do {
                    try database.batch {
                        let value: Int = database.get(path) ?? 0
                        database.set(value + 1, for: path)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(finished, "an adding thread did not finish")
        #expect(failures.current.isEmpty, "batches failed: \(failures.current.prefix(3))")
        let total = counters.reduce(0) { $0 + (database.get($1) as Int? ?? 0) }
        return threadCount * additions - total
    }

    @Test("Read-modify-write in batches from 8 threads loses no update (SQLite, in-memory)")
    func noLostUpdates() async throws {
        let additions = try StressSettings.count("PATHBASE_STRESS_UPDATES", default: 1_000)
        let sqlite = try SQLiteDatabase(path: SQLiteTestFiles.newPath())
        let sqliteLost = await Self.incrementConcurrently(sqlite, additions: additions)
        #expect(sqliteLost == 0)
        sqlite.close()
        Self.report("SQLiteDatabase batched read-modify-write", writes: additions, lost: sqliteLost)
        let inMemory = UndoableDatabase(wrapping: InMemoryHistoryDatabase(), depth: 1)
        let inMemoryLost = await Self.incrementConcurrently(inMemory, additions: additions)
        #expect(inMemoryLost == 0)
        Self.report("UndoableDatabase(InMemoryHistoryDatabase) batched read-modify-write", writes: additions, lost: inMemoryLost)
    }

    @Test("Instances created concurrently are all listed, with their values")
    func concurrentCreation() async {
        let perThread = 2_000
        let plain = InMemoryDatabase()
        let history = InMemoryHistoryDatabase()
        await Self.createConcurrently(in: plain, perThread: perThread)
        await Self.createConcurrently(in: history, perThread: perThread)

        for database in [plain, history] as [any Database] {
            let counters = database.all(of: Counter.self)
            #expect(counters.count == Self.threadCount * perThread)
            #expect(Set(counters.map(\.id)) == Set(0 ..< Self.threadCount * perThread))
            #expect(counters.allSatisfy { $0.owner == $0.id / perThread && $0.value == 1 })
        }
    }
}
