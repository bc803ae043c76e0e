import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1700–1749 for the caching tests.

@Model(id: 1710)
final class CachedNote {
    @Property(id: 1) var text: String
    @Property(id: 2) var pinned: Bool
    @Property(id: 3) var rating: Int? = 3
    @Reference(id: 4) var parent: CachedNote?
    @ReferenceList(id: 5) var children: [CachedNote]
}

/// A database that forwards to another one and counts the reads that reach it.
final class CachingReadCounter<Base: Database>: Database {

    let base: Base
    private(set) var reads = 0

    init(_ base: Base) {
        self.base = base
    }

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        reads += 1
        return base.get(path)
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        base.set(value, for: path)
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, where: predicate)
    }
}

/// The uncached databases that `CachedDatabase` is compared against.
enum CachingWrappedKind: String, CaseIterable, Sendable {
    case inMemory, inMemoryHistory, minimal

    func make() -> any Database {
        switch self {
        case .inMemory: return InMemoryDatabase()
        case .inMemoryHistory: return InMemoryHistoryDatabase()
        case .minimal: return MinimalDatabase()
        }
    }
}

@Suite("CachedDatabase: reads through the cache, writes through to the database")
struct CachingCachedDatabaseTests {

    private static let model: ModelKey = 1749

    private static func path(_ instance: Int, _ property: Int = 1) -> Path {
        Path(model: model, instance: instance, property: property)
    }

    /// Wraps a database of any kind in a cache (opening the existential).
    private static func cached(_ database: some Database, maxCount: Int) -> any Database {
        CachedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: maxCount))
    }

    @Test("Random writes and reads of mixed types give the same results as the uncached database", arguments: CachingWrappedKind.allCases, [1, 3, 1000])
    func sameResultsAsUncached(kind: CachingWrappedKind, maxCount: Int) {
        let plain = kind.make()
        let cached = Self.cached(kind.make(), maxCount: maxCount)
        var generator = SplitMix64(seed: 7)
        for step in 0 ..< 3_000 {
            let path = Self.path(Int(generator.next() % 6), 1 + Int(generator.next() % 2))
            let action = generator.next() % 9
            switch action {
            case 0: for database in [plain, cached] { database.set(step, for: path) }
            case 1: for database in [plain, cached] { database.set("s\(step)", for: path) }
            case 2: for database in [plain, cached] { database.set(step % 3 == 0 ? nil : Int?.some(step), for: path) }
            case 3:
                let expected: Int? = plain.get(path)
                let actual: Int? = cached.get(path)
                #expect(actual == expected, "Int at \(path), step \(step)")
            case 4:
                let expected: String? = plain.get(path)
                let actual: String? = cached.get(path)
                #expect(actual == expected, "String at \(path), step \(step)")
            case 5:
                let expected: Int?? = plain.get(path)
                let actual: Int?? = cached.get(path)
                #expect(actual == expected, "Int?? at \(path), step \(step)")
            case 6:
                let expected: Double? = plain.get(path)
                let actual: Double? = cached.get(path)
                #expect(actual == expected, "Double at \(path), step \(step)")
            case 7:
                let status: InstanceStatus = step % 2 == 0 ? .created : .deleted
                for database in [plain, cached] { database.set(status, for: .status(model: Self.model, instance: path.instance)) }
            default:
                let expected = Dictionary(uniqueKeysWithValues: plain.all(model: Self.model) { ($0, $1) })
                let actual = Dictionary(uniqueKeysWithValues: cached.all(model: Self.model) { ($0, $1) })
                #expect(actual == expected)
            }
        }
    }

    @Test("Models behave the same through the cache", arguments: CachingWrappedKind.allCases)
    func modelsThroughTheCache(kind: CachingWrappedKind) {
        let database = Self.cached(kind.make(), maxCount: 2)
        let root = CachedNote.create(in: database, id: 1, text: "root", pinned: true, rating: nil, parent: nil, children: [])
        let child: CachedNote = database.create(id: 2)
        child.text = "child"
        child.parent = root
        root.children = [child, CachedNote(database: database, id: 3)]
        #expect(root.text == "root")
        #expect(root.pinned)
        #expect(root.rating == nil)
        withKnownIssue("MinimalDatabase reads a missing Int?? as .some(nil), so the explicit default is skipped") {
            #expect(child.rating == 3)
        } when: {
            kind == .minimal
        }
        #expect(child.parent == root)
        #expect(root.children.map(\.id) == [2, 3])
        #expect(root.children.map(\.status) == [.created, .notCreated])
        child.delete()
        #expect(root.children.first?.status == .deleted)
        #expect(Set(database.all(of: CachedNote.self).map(\.id)) == [1])
        #expect(database.get(id: 2, of: CachedNote.self)?.text == "child")
        #expect(database.active(id: 2, of: CachedNote.self) == nil)
        child.insert()
        #expect(Set(database.all(of: CachedNote.self).map(\.id)) == [1, 2])
    }

    @Test("A cached value answers repeated reads without reading the wrapped database")
    func hitsDoNotReachTheDatabase() {
        let counter = CachingReadCounter(InMemoryDatabase())
        let database = CachedDatabase(wrapping: counter, cache: MaximumCountCache(maxCount: 10))
        database.set("value", for: Self.path(1))
        for _ in 0 ..< 5 {
            let value: String? = database.get(Self.path(1))
            #expect(value == "value")
        }
        #expect(counter.reads == 0)

        // A value written to the wrapped database is read once, then cached.
        counter.base.set(7, for: Self.path(2))
        for _ in 0 ..< 5 {
            let value: Int? = database.get(Self.path(2))
            #expect(value == 7)
        }
        #expect(counter.reads == 1)
    }

    @Test("A missing value is not cached: every read of it reaches the wrapped database")
    func noNegativeCaching() {
        let counter = CachingReadCounter(InMemoryDatabase())
        let database = CachedDatabase(wrapping: counter, cache: MaximumCountCache(maxCount: 10))
        for _ in 0 ..< 3 {
            let value: Int? = database.get(Self.path(1))
            #expect(value == nil)
        }
        #expect(counter.reads == 3)
        database.set(1, for: Self.path(1))
        let value: Int? = database.get(Self.path(1))
        #expect(value == 1)
        #expect(counter.reads == 3)
    }

    @Test("Reading a cached value as another type behaves like the wrapped database and keeps the cached value")
    func typeMismatch() {
        let counter = CachingReadCounter(InMemoryDatabase())
        let cache = MaximumCountCache(maxCount: 10)
        let database = CachedDatabase(wrapping: counter, cache: cache)
        let path = Self.path(1)
        database.set(5, for: path)
        let asString: String? = database.get(path)
        #expect(asString == nil)
        #expect(counter.reads == 1)
        let asInt: Int? = database.get(path)
        #expect(asInt == 5)
        #expect(counter.reads == 1)
        #expect(cache.value(at: path, as: Int.self) == 5)
        let stored: Int? = counter.base.get(path)
        #expect(stored == 5)

        // Through a model: a property whose type changed reads its default, the value stays.
        let note: CachedNote = database.create(id: 1)
        database.set(42, for: note.path(of: 1))
        #expect(note.text == "")
        let old: Int? = database.get(note.path(of: 1))
        #expect(old == 42)
    }

    @Test("After eviction, values are read back from the wrapped database correctly")
    func evictedValuesReadBack() {
        let counter = CachingReadCounter(InMemoryDatabase())
        let cache = MaximumCountCache(maxCount: 4)
        let database = CachedDatabase(wrapping: counter, cache: cache)
        for instance in 0 ..< 100 { database.set(instance * 2, for: Self.path(instance)) }
        #expect(cache.count == 4)
        for instance in 0 ..< 100 {
            let value: Int? = database.get(Self.path(instance))
            #expect(value == instance * 2)
        }
        #expect(counter.reads >= 96)
        #expect(cache.count == 4)
    }

    @Test("Two model types with one id are still caught through the cache")
    func modelIdConflictTraps() async {
        await #expect(processExitsWith: .failure) {
            let wrapped = InMemoryDatabase()
            let database = CachedDatabase(wrapping: wrapped, cache: MaximumCountCache(maxCount: 10))
            _ = wrapped.create(id: 1, of: CachedNote.self)
            _ = database.create(id: 1, of: ConflictingNote.self)
        }
    }

    @Test("A custom DatabaseCache works with CachedDatabase")
    func customCache() {
        let cache = UnboundedTestCache()
        let database = CachedDatabase(wrapping: MinimalDatabase(), cache: cache)
        let note = CachedNote.create(in: database, id: 1, text: "hello", pinned: false, rating: 1, parent: nil, children: [])
        #expect(note.text == "hello")
        #expect(cache.count > 0)
        cache.removeAll()
        #expect(note.text == "hello")
        #expect(note.rating == 1)
    }
}

/// Uses model id 1710 like ``CachedNote``: only ever used in the exit test above.
@Model(id: 1710)
final class ConflictingNote {
    @Property(id: 1) var text: String
}

/// A cache without eviction, written the way the `DatabaseCache` documentation shows.
final class UnboundedTestCache: DatabaseCache, @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Path: any DatabaseValue] = [:]

    var count: Int { lock.withLock { values.count } }

    func value<Value: DatabaseValue>(at path: Path, as type: Value.Type) -> Value? {
        lock.withLock { values[path].flatMap { $0 as? Value } }
    }

    func store<Value: DatabaseValue>(_ value: Value, for path: Path) {
        lock.withLock { values[path] = value }
    }

    func removeValue(at path: Path) {
        lock.withLock { values[path] = nil }
    }

    func removeAll() {
        lock.withLock { values.removeAll() }
    }
}
