import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1700–1749 for the caching tests (raw paths only in this file).

@Suite("MaximumCountCache: bounded size, second-chance eviction, typed values")
struct CachingMaximumCountCacheTests {

    private static func path(_ instance: Int, property: Int = 1, model: ModelKey = 1700) -> Path {
        Path(model: model, instance: instance, property: property)
    }

    @Test("Never holds more than maxCount values, and every value it holds is the last one stored", arguments: [1, 2, 1000])
    func boundedAndCorrect(maxCount: Int) {
        let cache = MaximumCountCache(maxCount: maxCount)
        var stored: [Path: Int] = [:]
        var generator = SplitMix64(seed: UInt64(maxCount))
        for step in 0 ..< maxCount * 5 + 50 {
            // Several properties (columns) and instances, with repeated paths.
            let path = Self.path(Int(generator.next() % UInt64(maxCount * 3 + 3)), property: 1 + Int(generator.next() % 4))
            cache.store(step, for: path)
            stored[path] = step
            #expect(cache.count <= maxCount)
            // The value stored last is always there.
            #expect(cache.value(at: path, as: Int.self) == step)
        }
        #expect(cache.count == min(maxCount, stored.count))
        var present = 0
        for (path, value) in stored {
            if let cached = cache.value(at: path, as: Int.self) {
                #expect(cached == value)
                present += 1
            }
        }
        #expect(present == cache.count)
    }

    @Test("maxCount below 1 is treated as 1", arguments: [0, -1, Int.min])
    func clampsToOne(maxCount: Int) {
        let cache = MaximumCountCache(maxCount: maxCount)
        #expect(cache.maxCount == 1)
        cache.store("a", for: Self.path(1))
        cache.store("b", for: Self.path(2))
        #expect(cache.count == 1)
        #expect(cache.value(at: Self.path(1), as: String.self) == nil)
        #expect(cache.value(at: Self.path(2), as: String.self) == "b")
    }

    @Test("Values never read are evicted oldest first")
    func unusedEvictedInOrder() {
        let cache = MaximumCountCache(maxCount: 3)
        for instance in 1 ... 5 { cache.store(instance, for: Self.path(instance)) }
        // 1 and 2 went first; 3, 4 and 5 stay.
        #expect((1 ... 5).map { cache.value(at: Self.path($0), as: Int.self) } == [nil, nil, 3, 4, 5])
    }

    @Test("A value read since the last sweep gets a second chance: the least recently used goes")
    func readValueSurvives() {
        let cache = MaximumCountCache(maxCount: 2)
        cache.store("a", for: Self.path(1))
        cache.store("b", for: Self.path(2))
        #expect(cache.value(at: Self.path(1), as: String.self) == "a")
        cache.store("c", for: Self.path(3))
        // "b" was used least recently.
        #expect(cache.value(at: Self.path(2), as: String.self) == nil)
        #expect(cache.value(at: Self.path(1), as: String.self) == "a")
        #expect(cache.value(at: Self.path(3), as: String.self) == "c")
        #expect(cache.count == 2)
    }

    @Test("A replaced value counts as used and keeps its place")
    func replacedValueSurvives() {
        let cache = MaximumCountCache(maxCount: 2)
        cache.store(1, for: Self.path(1))
        cache.store(2, for: Self.path(2))
        cache.store(10, for: Self.path(1))
        #expect(cache.count == 2)
        cache.store(3, for: Self.path(3))
        #expect(cache.value(at: Self.path(1), as: Int.self) == 10)
        #expect(cache.value(at: Self.path(2), as: Int.self) == nil)
        #expect(cache.value(at: Self.path(3), as: Int.self) == 3)
    }

    @Test("With maxCount 1, each new value replaces the previous one, read or not")
    func singleEntry() {
        let cache = MaximumCountCache(maxCount: 1)
        for instance in 1 ... 10 {
            cache.store(instance, for: Self.path(instance))
            #expect(cache.value(at: Self.path(instance), as: Int.self) == instance)
            #expect(cache.value(at: Self.path(instance - 1), as: Int.self) == nil)
            #expect(cache.count == 1)
        }
    }

    @Test("Eviction matches a reference second-chance model, step by step", arguments: [1, 2, 3, 8])
    func matchesReferenceModel(maxCount: Int) {
        let cache = MaximumCountCache(maxCount: maxCount)
        var model = SecondChanceModel(maxCount: maxCount)
        var generator = SplitMix64(seed: 42 &+ UInt64(maxCount))
        for step in 0 ..< 5_000 {
            let path = Self.path(Int(generator.next() % 12), property: 1 + Int(generator.next() % 2))
            switch generator.next() % 10 {
            case 0 ..< 4:
                cache.store(step, for: path)
                model.store(step, for: path)
            case 4 ..< 9:
                #expect(cache.value(at: path, as: Int.self) == model.value(at: path))
            default:
                cache.removeValue(at: path)
                model.remove(path)
            }
            #expect(cache.count == model.count)
        }
    }

    @Test("A value read as another type is converted with as?, and stays cached as it was")
    func otherTypes() {
        let cache = MaximumCountCache(maxCount: 10)
        let path = Self.path(1)
        cache.store(5, for: path)
        #expect(cache.value(at: path, as: String.self) == nil)
        #expect(cache.value(at: path, as: Int?.self) == .some(5))
        #expect(cache.value(at: path, as: Int.self) == 5)

        // A stored nil is a value, not a miss.
        let optionalPath = Self.path(2)
        cache.store(Int?.none, for: optionalPath)
        #expect(cache.value(at: optionalPath, as: Int?.self) == .some(.none))
        #expect(cache.value(at: Self.path(3), as: Int?.self) == .none)
    }

    @Test("A path can change value type back and forth, in a column typed by another type")
    func typeChanges() {
        let cache = MaximumCountCache(maxCount: 4)
        let path = Self.path(1)
        cache.store(1, for: path)
        cache.store(2, for: Self.path(2))
        cache.store("one", for: path)
        #expect(cache.value(at: path, as: String.self) == "one")
        #expect(cache.value(at: path, as: Int.self) == nil)
        cache.store([1.5], for: path)
        #expect(cache.value(at: path, as: [Double].self) == [1.5])
        cache.store(11, for: path)
        #expect(cache.value(at: path, as: Int.self) == 11)
        #expect(cache.value(at: Self.path(2), as: Int.self) == 2)
        #expect(cache.count == 2)
        // Values of another type than the column's also count and get evicted.
        for instance in 3 ... 8 { cache.store("\(instance)", for: Self.path(instance)) }
        #expect(cache.count == 4)
        for instance in 3 ... 8 {
            if let value = cache.value(at: Self.path(instance), as: String.self) { #expect(value == "\(instance)") }
        }
    }

    @Test("removeValue and removeAll forget values; freed room is reused")
    func removal() {
        let cache = MaximumCountCache(maxCount: 3)
        for instance in 1 ... 3 { cache.store(instance, for: Self.path(instance)) }
        cache.removeValue(at: Self.path(2))
        cache.removeValue(at: Self.path(99))
        #expect(cache.count == 2)
        #expect(cache.value(at: Self.path(2), as: Int.self) == nil)
        // The freed room takes a new value without evicting another.
        cache.store(4, for: Self.path(4))
        #expect(cache.count == 3)
        #expect([1, 3, 4].map { cache.value(at: Self.path($0), as: Int.self) } == [1, 3, 4])

        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.value(at: Self.path(1), as: Int.self) == nil)
        for instance in 1 ... 10 { cache.store(instance, for: Self.path(instance, property: 2)) }
        #expect(cache.count == 3)
        #expect(cache.value(at: Self.path(10, property: 2), as: Int.self) == 10)
    }

    @Test("Ids beyond 32 bits, negative ids and many columns all work")
    func unusualIds() {
        let cache = MaximumCountCache(maxCount: 1000)
        let paths =
            [
                Path(model: Int.max, instance: Int.min, property: 1),
                Path(model: -1, instance: -1, property: -1),
                Path(model: 1 << 40, instance: 0, property: 1 << 35)
            ] + (0 ..< 200).map { Path(model: 1701, instance: $0 * 7919, property: $0 % 50) }
        for (index, path) in paths.enumerated() { cache.store(index, for: path) }
        for (index, path) in paths.enumerated() { #expect(cache.value(at: path, as: Int.self) == index) }
    }

    @Test("Many threads storing and reading at once keep the cache consistent")
    func concurrentUse() async {
        let cache = MaximumCountCache(maxCount: 100)
        let wrong = Locked(0)
        let finished = await TestThread.run(count: 8) { thread in
            for index in 0 ..< 20_000 {
                // Each thread owns its property, so its values are predictable.
                let path = Path(model: 1702, instance: index % 300, property: thread)
                cache.store(index % 300 * 10 + thread, for: path)
                if let value = cache.value(at: path, as: Int.self), value != index % 300 * 10 + thread {
                    wrong.withLock { $0 += 1 }
                }
                if index % 1000 == 0 { cache.removeValue(at: path) }
            }
        }
        #expect(finished)
        #expect(wrong.current == 0)
        #expect(cache.count <= 100)
    }
}

/// A straightforward model of the documented second-chance policy, to compare against.
struct SecondChanceModel {
    let maxCount: Int
    private var ring: [(path: Path, value: Int, used: Bool)?] = []
    private var free: [Int] = []
    private var hand = 0

    init(maxCount: Int) {
        self.maxCount = maxCount
    }

    var count: Int { ring.count { $0 != nil } }

    private func position(of path: Path) -> Int? {
        ring.firstIndex { $0?.path == path }
    }

    mutating func value(at path: Path) -> Int? {
        guard let position = position(of: path) else { return nil }
        ring[position]?.used = true
        return ring[position]?.value
    }

    mutating func store(_ value: Int, for path: Path) {
        if let position = position(of: path) {
            ring[position] = (path, value, true)
            return
        }
        let position: Int
        if let reused = free.popLast() {
            position = reused
        } else if ring.count < maxCount {
            ring.append(nil)
            position = ring.count - 1
        } else {
            while true {
                let candidate = hand
                hand = (hand + 1) % ring.count
                if ring[candidate]?.used == true {
                    ring[candidate]?.used = false
                } else {
                    break
                }
            }
            position = (hand + ring.count - 1) % ring.count
        }
        ring[position] = (path, value, false)
    }

    mutating func remove(_ path: Path) {
        guard let position = position(of: path) else { return }
        ring[position] = nil
        free.append(position)
    }
}
