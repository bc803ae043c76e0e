import Pathbase
import Testing

// Model ids 1700–1749 for the caching tests.

@Model(id: 1730)
final class CachedTask {
    @Property(id: 1) var title: String
    @Property(id: 2) var done: Bool
}

/// The documentation's "Caching" sample, compiled and checked.
@Suite("Documented examples: caching")
struct CachingSeedExampleTests {

    @Test("Caching: combine a database with a MaximumCountCache and use it as usual")
    func cachedDatabase() {
        // The documented custom database stands in for "MyDatabase".
        let database = MinimalDatabase()
        let cache = MaximumCountCache(maxCount: 1000)
        let combined = CachedDatabase(wrapping: database, cache: cache)

        let task = CachedTask.create(in: combined, id: 1, title: "Write docs", done: false)
        task.done = true
        #expect(task.title == "Write docs")
        #expect(task.done)
        #expect(combined.all(of: CachedTask.self) == [task])
        // The data lives in the wrapped database.
        #expect(database.get(id: 1, of: CachedTask.self)?.title == "Write docs")
        #expect(cache.count > 0 && cache.count <= 1000)
    }

    @Test("Caching: the README example over an in-memory history database")
    func readmeExample() {
        let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 10_000))
        let task = CachedTask.create(in: database, id: 1, title: "Draft", done: false)
        let before = database.clock.now()
        task.title = "Final"
        let old: Timestamped<String>? = database.get(task.path(of: 1), at: before)
        #expect(task.title == "Final")
        #expect(old?.value == "Draft")
    }
}
