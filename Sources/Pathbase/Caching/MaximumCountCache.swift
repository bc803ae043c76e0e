/// A ``DatabaseCache`` that holds at most a fixed number of values and evicts the ones not
/// used recently.
///
/// ```swift
/// let cache = MaximumCountCache(maxCount: 1000)
/// let database = CachedDatabase(wrapping: InMemoryDatabase(), cache: cache)
/// ```
///
/// Any `maxCount` of at least 1 works; smaller values are treated as 1, so the cache always
/// holds at least the value used last.
///
/// **Eviction** follows the *second chance* (CLOCK) policy, a constant-time approximation of
/// "least recently used": entries sit on a ring swept by a hand. Reading or replacing an entry
/// marks it used. When a new value needs room, the hand skips (and unmarks) used entries and
/// evicts the first unmarked one: an entry used since the hand last passed it survives one
/// more round, and without reads the oldest value goes first. Each insertion costs O(1)
/// amortised: the hand only passes entries marked by earlier uses.
///
/// **Lookups** cost about as much as reading ``InMemoryDatabase``: values are grouped by model and
/// property, found through open-addressing tables on integer ids, and kept unboxed in an array
/// typed by the property's value type. A value read with another type than it was stored
/// with is converted with `as?`, like the in-memory databases do.
///
/// Safe to use from any thread.
public final class MaximumCountCache: DatabaseCache, @unchecked Sendable {
    // @unchecked: `state` is touched only while holding `lock`; `maxCount` is a constant.

    /// The most values the cache holds at once; at least 1.
    public let maxCount: Int

    private let lock = Lock()
    private let storage = LockedState(Storage())

    /// Creates an empty cache holding at most `maxCount` values (at least 1).
    ///
    /// ```swift
    /// let cache = MaximumCountCache(maxCount: 10_000)
    /// ```
    public init(maxCount: Int) {
        self.maxCount = max(1, maxCount)
    }

    deinit { storage.free() }

    /// The cache's state; touched only while holding `lock`.
    private var state: Storage {
        unsafeAddress { UnsafePointer(storage.pointer) }
        unsafeMutableAddress { storage.pointer }
    }

    /// The number of values cached now, at most ``maxCount``.
    public var count: Int {
        lock.withLock { state.count }
    }

    public func value<Value: DatabaseValue>(at path: Path, as type: Value.Type) -> Value? {
        lock.withLock {
            state.columns[ModelProperty(path)]?.value(of: path.instance, as: type)
        }
    }

    /// Returns the value cached for a path, or the result of `fallback` (called without
    /// holding the lock) when none is cached or it is not a `Value`.
    ///
    /// The hit path of ``CachedDatabase``: a hit of the column's own type is returned
    /// straight into the result. Testing a `Value?` temporary instead would cost a generic
    /// metadata lookup per read in unspecialized code, as much as the rest of the hit.
    func value<Value: DatabaseValue>(at path: Path, as type: Value.Type, orElse fallback: () -> Value?) -> Value? {
        lock.lock()
        if let column = state.columns[ModelProperty(path)], let code = column.exactCode(of: path.instance, as: type) {
            defer { lock.unlock() }
            return column.value(atCode: code, as: type)
        }
        lock.unlock()
        return boxedValue(at: path, as: type, orElse: fallback)
    }

    /// The rest of ``value(at:as:orElse:)``: boxed values, values read as another type than
    /// stored, and misses. Kept out of line so that its `Value?` temporary costs nothing on
    /// the hit path.
    @inline(never)
    private func boxedValue<Value: DatabaseValue>(at path: Path, as type: Value.Type, orElse fallback: () -> Value?) -> Value? {
        value(at: path, as: type) ?? fallback()
    }

    public func store<Value: DatabaseValue>(_ value: Value, for path: Path) {
        lock.withLock {
            let key = ModelProperty(path)
            let column: CacheColumn
            if let existing = state.columns[key] {
                if existing.replace(value, for: path.instance) { return }
                column = existing
            } else {
                column = TypedCacheColumn<Value>(index: state.columns.entries.count)
                state.columns.add(column, for: key)
            }
            let position = state.takePosition(maxCount: maxCount)
            column.insert(value, for: path.instance, position: position)
            state.ring[position] = RingEntry(column: column.index, instance: path.instance)
            state.count += 1
        }
    }

    public func removeValue(at path: Path) {
        lock.withLock {
            guard let position = state.columns[ModelProperty(path)]?.remove(path.instance) else { return }
            state.ring[position] = RingEntry(column: -1, instance: 0)
            state.freePositions.append(position)
            state.count -= 1
        }
    }

    public func removeAll() {
        lock.withLock { state = Storage() }
    }

    /// Evicts values until at most `count` are left, choosing them as a new value needing
    /// room would (values not used recently first).
    ///
    /// ```swift
    /// cache.removeLeastRecentlyUsed(toReachCount: 100)
    /// ```
    public func removeLeastRecentlyUsed(toReachCount count: Int) {
        lock.withLock {
            if count <= 0 {
                state = Storage()
            } else {
                state.evict(toReach: count)
            }
        }
    }
}

extension MaximumCountCache {

    /// One cached value's place on the clock ring: which column, which instance.
    struct RingEntry {
        /// Index of the column in the directory; -1 for a free position.
        var column: Int
        var instance: InstanceKey
    }

    struct Storage {
        var columns = ColumnDirectory<CacheColumn>()
        /// Every cached value, swept by `hand` when room is needed.
        var ring = ContiguousArray<RingEntry>()
        /// Ring positions freed by ``removeValue(at:)``, reused first.
        var freePositions: [Int] = []
        var hand = 0
        var count = 0

        /// Evicts entries with the hand until at most `target` (at least 1) are cached.
        mutating func evict(toReach target: Int) {
            // Each turn evicts an entry or unmarks one (or passes a free position), so this
            // ends within two rounds of the ring per evicted entry.
            while count > target {
                let position = hand
                hand = hand + 1 == ring.count ? 0 : hand + 1
                let entry = ring[position]
                guard entry.column >= 0 else { continue }
                let column = columns.entries[entry.column].column
                if column.takeUse(of: entry.instance) { continue }
                column.remove(entry.instance)
                ring[position] = RingEntry(column: -1, instance: 0)
                freePositions.append(position)
                count -= 1
            }
        }

        /// Returns a ring position for a new entry, evicting one when the ring is full.
        mutating func takePosition(maxCount: Int) -> Int {
            if let position = freePositions.popLast() { return position }
            if ring.count < maxCount {
                ring.append(RingEntry(column: -1, instance: 0))
                return ring.count - 1
            }
            // Full and no free position: every ring entry is cached. Give used entries a
            // second chance; each turn unmarks one, so this ends within two rounds.
            while true {
                let position = hand
                hand = hand + 1 == ring.count ? 0 : hand + 1
                let entry = ring[position]
                let column = columns.entries[entry.column].column
                if column.takeUse(of: entry.instance) { continue }
                column.remove(entry.instance)
                count -= 1
                return position
            }
        }
    }
}
