import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 1700–1749 for the caching tests (raw paths only in this file).

@Suite("CachedDatabase under concurrent use")
struct CachingConcurrencyTests {

    static let taskCount = 8
    static let writesPerTask = 20_000
    static let model: ModelKey = 1747

    /// Each thread writes its own paths and reads each one back at once; returns the misreads.
    static func hammer<D: Database & Sendable>(_ database: D) async -> Int {
        let misread = Locked(0)
        let finished = await TestThread.run(count: taskCount) { task in
            var wrong = 0
            for index in 0 ..< writesPerTask {
                let path = Path(model: model, instance: index % 2_000, property: task)
                database.set(index * 8 + task, for: path)
                let value: Int? = database.get(path)
                if value != index * 8 + task { wrong += 1 }
            }
            misread.withLock { $0 += wrong }
        }
        #expect(finished)
        return misread.current
    }

    @Test("8 threads writing and reading through one cache lose no write", arguments: [1, 64, 100_000])
    func noLostWrites(maxCount: Int) async {
        let database = CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: maxCount))
        #expect(await Self.hammer(database) == 0)
        // The last value of every path, read through the cache and from the database.
        for task in 0 ..< Self.taskCount {
            for instance in 0 ..< 2_000 {
                let path = Path(model: Self.model, instance: instance, property: task)
                let last = (Self.writesPerTask - 2_000 + instance) * 8 + task
                let cached: Int? = database.get(path)
                let stored: Int? = database.base.get(path)
                #expect(cached == last)
                #expect(stored == last)
            }
        }
    }

    @Test("8 threads on a cached history database lose no write", arguments: [8, 100_000])
    func noLostWritesWithHistory(maxCount: Int) async {
        let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: maxCount))
        #expect(await Self.hammer(database) == 0)
        #expect(database.records().count == Self.taskCount * Self.writesPerTask)
    }

    /// Writers and readers share a few paths while a small cache keeps evicting them; at the
    /// end the cache must agree with the database on every path (no stale value put back).
    /// Returns how many of the paths the cache held at the end.
    static func contend<Wrapped: Database & Sendable>(_ database: CachedDatabase<Wrapped>) async -> Int {
        let paths = (0 ..< 32).map { Path(model: model, instance: $0, property: 99) }
        // Readers go on until every writer is done, so that the last operations fill the
        // cache: a history database's writes remove cached values, and readers finishing
        // first would leave nothing cached to compare.
        let writersLeft = Locked((taskCount + 1) / 2)
        let finished = await TestThread.run(count: taskCount) { task in
            var generator = SplitMix64(seed: UInt64(task))
            var step = 0
            while step < 20_000 || (task % 2 == 1 && writersLeft.withLock { $0 } > 0) {
                let path = paths[Int(generator.next() % UInt64(paths.count))]
                if task % 2 == 0 {
                    database.set(step * 8 + task, for: path)
                } else {
                    let _: Int? = database.get(path)
                }
                step += 1
            }
            if task % 2 == 0 { writersLeft.withLock { $0 -= 1 } }
        }
        #expect(finished)
        return expectCacheAgrees(database, on: paths)
    }

    /// Expects every value the cache holds for `paths` to be the stored one; returns how many
    /// it held.
    static func expectCacheAgrees<Wrapped: Database & Sendable>(_ database: CachedDatabase<Wrapped>, on paths: [Path]) -> Int {
        var held = 0
        for path in paths {
            let stored: Int? = database.base.get(path)
            if let cached = database.cache.value(at: path, as: Int.self) {
                held += 1
                #expect(cached == stored, "stale cached value at \(path)")
            }
            let read: Int? = database.get(path)
            #expect(read == stored)
        }
        return held
    }

    /// Runs `attempt` (a contended run on a new database, returning how many values the cache
    /// held at its end) until the cache held some, at most five times: a cache that kept
    /// nothing would agree vacuously. Whether the last operations leave values cached depends
    /// on the thread schedule (a write to a file with pending writes caches nothing), so one
    /// empty run on a loaded machine is no failure; five are.
    static func untilSomethingCached(_ attempt: () async throws -> Int) async rethrows {
        for _ in 0 ..< 5 {
            if try await attempt() > 0 { return }
        }
        Issue.record("in five runs the cache held none of the contended paths, so none was compared")
    }

    @Test("Concurrent readers filling the cache never put back a value a writer replaced")
    func noStaleFills() async {
        await Self.untilSomethingCached { await Self.contend(CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: 16))) }
        await Self.untilSomethingCached { await Self.contend(CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 16))) }
    }

    @Test("Instances created concurrently through a cache are all listed, with their values")
    func concurrentCreation() async {
        let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 500))
        await ConcurrentWriteTests.createConcurrently(in: database, perThread: 1_000)
        let counters = database.all(of: Counter.self)
        #expect(counters.count == Self.taskCount * 1_000)
        #expect(counters.allSatisfy { $0.owner == $0.id / 1_000 && $0.value == 1 })
    }
    /// Batches that read and write through the cache on some threads, plain reads and
    /// writes on others, over one small set of paths: all finish, and the cache agrees with
    /// the file. (The cache once held a lock of its own while calling SQLite, and a batch,
    /// holding SQLite's lock, read through the cache: two threads waited on each other.)
    static func batchesAndPlainCallsTogether<Wrapped: BatchDatabase & Sendable>(_ database: CachedDatabase<Wrapped>) async -> Int {
        let paths = (0 ..< 16).map { Path(model: model, instance: $0, property: 98) }
        // Per batch: thrown on purpose, and any other failure (which must not happen).
        let rolledBack = Locked(0)
        let otherFailures = Locked<[String]>([])
        let steps = 2_000
        // Nothing is cached while a batch runs: the plain threads go on until both batch
        // threads are done, then a while longer, so that the cache holds values to compare.
        let batchThreadsDone = Locked(0)
        let finished = await TestThread.run(count: 4, timeout: 120) { task in
            var generator = SplitMix64(seed: UInt64(100 + task))
            var step = 0
            var stepsAfterBatches = 0
            while task < 2 ? step < steps : (step < steps || batchThreadsDone.current < 2 || stepsAfterBatches < 500) {
                defer {
                    step += 1
                    if task >= 2, batchThreadsDone.current == 2 { stepsAfterBatches += 1 }
                }
                let path = paths[Int(generator.next() % UInt64(paths.count))]
                if task < 2 {
                    do {
                        try database.batch {
                            let read: Int? = database.get(path)
                            database.set((read ?? 0) + 1, for: paths[Int(generator.next() % UInt64(paths.count))])
                            if step % 7 == 0 { throw CachingBatchFailure() }
                        }
                    } catch is CachingBatchFailure {
                        rolledBack.withLock { $0 += 1 }
                    } catch {
                        otherFailures.withLock { $0.append("\(error)") }
                    }
                } else if step % 3 == 0 {
                    database.set(step, for: path)
                } else {
                    let _: Int? = database.get(path)
                }
            }
            if task < 2 { batchThreadsDone.withLock { $0 += 1 } }
        }
        #expect(finished, "threads waited on each other")
        #expect(otherFailures.current.isEmpty, "batches failed: \(otherFailures.current.prefix(3))")
        #expect(rolledBack.current == 2 * (0 ..< steps).filter { $0 % 7 == 0 }.count, "each batch's own failure reached its caller")
        return expectCacheAgrees(database, on: paths)
    }

    @Test("Batches reading through the cache while other threads read and write outside batches neither deadlock nor leave a stale value")
    func batchesAndPlainCalls() async throws {
        try await Self.untilSomethingCached {
            await Self.batchesAndPlainCallsTogether(CachedDatabase(wrapping: try SQLiteDatabase(path: SQLiteTestFiles.newPath()), cache: MaximumCountCache(maxCount: 8)))
        }
    }
}
