import Foundation
import Pathbase
import Testing

/// A cache as a StateModel user wrote one: only `get(_:)` and `set(_:for:)`, no lock, no
/// way to forget a value. Deprecated because it relies on StateModel's spellings, which keeps
/// the test target free of warnings.
@available(*, deprecated, message: "written the StateModel way")
final class RememberEverythingCache: DatabaseCache {
    private var values: [Path: Any] = [:]

    /// How many reads the cache answered.
    private(set) var hits = 0

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        guard let value = values[path] as? Value else { return nil }
        hits += 1
        return value
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        values[path] = value
    }
}

/// StateModel's caching API compiled against Pathbase (issue 48).
@Suite("StateModel compatibility: caches")
struct StateModelCacheTests {

    @available(*, deprecated)
    @Test("MaximumCountCache(maxCount:evictionFraction:) with get and set keeps at most maxCount values")
    func maximumCountCache() {
        let cache = MaximumCountCache(maxCount: 3, evictionFraction: 0.5)
        let paths = (1 ... 5).map { Path(model: Ticket.modelId, instance: $0, property: 1) }
        for (number, path) in paths.enumerated() {
            cache.set("Ticket \(number + 1)", for: path)
        }
        #expect(cache.count == 3)
        let newest: String? = cache.get(paths[4])
        #expect(newest == "Ticket 5")
        let oldest: String? = cache.get(paths[0])
        #expect(oldest == nil)
        let wrongType: Int? = cache.get(paths[4])
        #expect(wrongType == nil)

        let defaults = MaximumCountCache()
        #expect(defaults.maxCount == 1000)
        #expect(MaximumCountCache(maxCount: 10, elementsToKeep: 8).maxCount == 10)
    }

    @Test("removeLeastRecentlyUsed(toReachCount:) keeps the values used last")
    func removeLeastRecentlyUsed() {
        let cache = MaximumCountCache(maxCount: 10)
        let paths = (1 ... 6).map { Path(model: Ticket.modelId, instance: $0, property: 2) }
        for (number, path) in paths.enumerated() {
            cache.store(number, for: path)
        }
        // Used since stored: these survive one sweep of the hand.
        #expect(cache.value(at: paths[4], as: Int.self) == 4)
        #expect(cache.value(at: paths[5], as: Int.self) == 5)
        cache.removeLeastRecentlyUsed(toReachCount: 2)
        #expect(cache.count == 2)
        #expect(cache.value(at: paths[4], as: Int.self) == 4)
        #expect(cache.value(at: paths[5], as: Int.self) == 5)
        #expect(cache.value(at: paths[0], as: Int.self) == nil)
        cache.store(9, for: paths[0]) // the freed room is used again
        #expect(cache.count == 3)
        cache.removeLeastRecentlyUsed(toReachCount: 0)
        #expect(cache.count == 0)
    }

    @available(*, deprecated)
    @Test("A cache of one's own written for StateModel answers CachedDatabase's reads")
    func ownCache() {
        let base = InMemoryDatabase()
        let cache = RememberEverythingCache()
        let cached = CachedDatabase(wrapping: base, cache: cache)
        #expect(cached.database === base)
        let ticket = Ticket.create(in: cached, id: 1, title: "Cached")
        #expect(ticket.title == "Cached")
        #expect(ticket.title == "Cached")
        #expect(cache.hits >= 1)
        // Answered from the cache, not the database, which was changed behind it.
        base.set("Changed behind the cache", for: ticket.path(of: .title))
        #expect(ticket.title == "Cached")
    }

    @available(*, deprecated)
    @Test("Over a history database, a write makes a StateModel cache forget the old value")
    func ownCacheOverHistory() {
        let cache = RememberEverythingCache()
        let cached = CachedTimestampedDatabase(wrapping: InMemoryTimestampedDatabase(), cache: cache)
        let ticket = Ticket.create(in: cached, id: 1, title: "First")
        #expect(ticket.title == "First")
        ticket.title = "Second"
        #expect(ticket.title == "Second")
        #expect(ticket.title == "Second")
        let stored: Timestamped<String>? = cached.get(ticket.path(of: .title), at: nil as Date?)
        #expect(stored?.value == "Second")
        #expect(cached.database.history(of: ticket.path(of: .title), as: String.self).map(\.value) == ["First", "Second"])
    }
}
