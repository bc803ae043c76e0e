import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1700–1749 for the caching tests.

@Model(id: 1720)
final class CachedPage {
    @Property(id: 1) var title: String
}

@Suite("CachedDatabase over a HistoryDatabase: the cache never answers for the past")
struct CachingHistoryTests {

    private let path = Path(model: 1748, instance: 1, property: 1)

    private func stamp(_ time: Int64) -> Timestamp {
        Timestamp(time: time, counter: 0, replica: 1)
    }

    private func makeDatabase(maxCount: Int = 100) -> CachedDatabase<InMemoryHistoryDatabase> {
        CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: maxCount))
    }

    @Test("A cached history database is a HistoryDatabase; a cached plain database is not")
    func conformance() {
        let history: Any = makeDatabase()
        let plain: Any = CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: 1))
        #expect(history is any HistoryDatabase)
        #expect(!(plain is any HistoryDatabase))
    }

    @Test("get(_:at:) for a past date returns the value then, not the cached current value")
    func pastReadsBypassTheCache() {
        let database = makeDatabase()
        let beforeAll = database.clock.now()
        database.set("draft", for: path)
        let afterDraft = database.clock.now()
        database.set("final", for: path)
        // Fill the cache with the current value, then ask for the past.
        let current: String? = database.get(path)
        #expect(current == "final")
        let old: Timestamped<String>? = database.get(path, at: afterDraft)
        let none: Timestamped<String>? = database.get(path, at: beforeAll)
        let now: Timestamped<String>? = database.get(path, at: nil)
        #expect(old?.value == "draft")
        #expect(none == nil)
        #expect(now?.value == "final")
        #expect(now?.timestamp ?? .zero > afterDraft)

        // The same through a model and the instances listed at a date.
        let page = CachedPage.create(in: database, id: 1, title: "One")
        let beforeRename = database.clock.now()
        page.title = "Two"
        #expect(page.title == "Two")
        let title: Timestamped<String>? = database.get(page.path(of: 1), at: beforeRename)
        #expect(title?.value == "One")
        let earlier = database.all(model: CachedPage.modelId, at: beforeAll) { instance, _ in instance }
        #expect(earlier.isEmpty)
    }

    @Test("A timestamped write older than the current value does not replace the cached value")
    func olderWriteDoesNotPoisonTheCache() {
        let database = makeDatabase()
        database.set("new", for: path, timestamp: stamp(200))
        let first: String? = database.get(path)
        #expect(first == "new")
        database.set("old", for: path, timestamp: stamp(100))
        let second: String? = database.get(path)
        #expect(second == "new")
        database.set("newer", for: path, timestamp: stamp(300))
        let third: String? = database.get(path)
        #expect(third == "newer")
        let atOld: Timestamped<String>? = database.get(path, at: stamp(150))
        #expect(atOld?.value == "old")
        #expect(database.records(at: path).count == 3)
    }

    @Test("A plain write that is older than a record from the future does not enter the cache")
    func plainWriteBehindAFutureRecord() {
        let database = makeDatabase()
        let future = Timestamp(time: database.clock.now().time + 3_600_000_000, counter: 0, replica: 9)
        database.set("future", for: path, timestamp: future)
        let before: String? = database.get(path)
        #expect(before == "future")
        database.set("local", for: path)
        let cached: String? = database.get(path)
        let wrapped: String? = database.base.get(path)
        #expect(cached == wrapped)
        #expect(cached == "future")
    }

    @Test("Applying records from another replica updates what reads return")
    func applyingRecords() {
        let source = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2)), cache: MaximumCountCache(maxCount: 4))
        database.set("local", for: path)
        let local: String? = database.get(path)
        #expect(local == "local")
        source.set("remote", for: path)
        for record in source.records() { database.apply(record) }
        let remote: String? = database.get(path)
        #expect(remote == "remote")
        #expect(database.history(of: path, as: String.self).map(\.value) == ["local", "remote"])
        #expect(database.records().count == 2)
        #expect(database.records(after: nil, limit: 1).count == 1)
    }

    @Test("Random timestamped and plain writes give the same current values as the uncached database", arguments: [1, 3, 50])
    func sameAsUncached(maxCount: Int) {
        let clockTime = HybridLogicalClock().now().time
        let plain = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 3))
        let cached = CachedDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 3)), cache: MaximumCountCache(maxCount: maxCount))
        var generator = SplitMix64(seed: 99)
        for step in 0 ..< 2_000 {
            let path = Path(model: 1748, instance: Int(generator.next() % 5), property: 1)
            switch generator.next() % 4 {
            case 0:
                // Timestamps clearly in the past or an hour ahead, so that whether a plain
                // write wins does not depend on when each clock is read.
                let offset = Int64(generator.next() % 500_000)
                let time = generator.next() % 2 == 0 ? clockTime - 1_000_000 + offset : clockTime + 3_600_000_000 + offset
                let timestamp = Timestamp(time: time, counter: 0, replica: 4)
                plain.set(step, for: path, timestamp: timestamp)
                cached.set(step, for: path, timestamp: timestamp)
            case 1:
                plain.set(step, for: path)
                cached.set(step, for: path)
            default:
                let expected: Int? = plain.get(path)
                let actual: Int? = cached.get(path)
                #expect(actual == expected, "step \(step)")
            }
        }
    }
}

/// A database whose batches are all-or-nothing: a failing batch restores the values it had.
final class CachingRollbackDatabase: BatchDatabase {

    private var values: [Path: any DatabaseValue] = [:]

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        values[path].flatMap { $0 as? Value }
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        values[path] = value
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        values.compactMap { path, value in
            guard path.model == model, path.isStatus, let status = value as? InstanceStatus else { return nil }
            return predicate(path.instance, status)
        }
    }

    func batch<Result>(_ body: () throws -> Result) throws -> Result {
        let before = values
        do {
            return try body()
        } catch {
            values = before
            throw error
        }
    }
}

struct CachingBatchFailure: Error {}

@Suite("CachedDatabase forwards batches and the rest of the history API")
struct CachingForwardingTests {

    private let path = Path(model: 1746, instance: 1, property: 1)

    @Test("A failing batch leaves no uncommitted value in the cache; a successful one shows its values")
    func batches() throws {
        let database = CachedDatabase(wrapping: CachingRollbackDatabase(), cache: MaximumCountCache(maxCount: 10))
        database.set(1, for: path)
        let before: Int? = database.get(path)
        #expect(before == 1)
        #expect(throws: CachingBatchFailure.self) {
            try database.batch {
                database.set(2, for: path)
                let inside: Int? = database.get(path)
                #expect(inside == 2)
                throw CachingBatchFailure()
            }
        }
        let after: Int? = database.get(path)
        #expect(after == 1)

        try database.batch { database.set(3, for: path) }
        let committed: Int? = database.get(path)
        #expect(committed == 3)
        // Caching resumes after the batch.
        #expect(database.cache.value(at: path, as: Int.self) == 3)
    }

    @Test("latestRecord, historyStart and prune reach the wrapped database")
    func historyForwarding() throws {
        let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 10))
        database.set("a", for: path)
        let middle = database.clock.now()
        database.set("b", for: path)
        #expect(database.latestRecord(at: path)?.value as? String == "b")
        #expect(database.historyStart == nil)
        try database.prune(before: middle)
        #expect(database.historyStart == middle)
        #expect(database.historyStart == database.base.historyStart)
        let current: String? = database.get(path)
        #expect(current == "b")
    }
}
