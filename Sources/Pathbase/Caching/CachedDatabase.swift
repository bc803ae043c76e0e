/// A database that keeps recently used values of another database in a ``DatabaseCache``.
///
/// Wrap a slower database (one on disk, or your own) to answer repeated reads from memory:
///
/// ```swift
/// let database = InMemoryDatabase()
/// let cache = MaximumCountCache(maxCount: 1000)
/// let combined = CachedDatabase(wrapping: database, cache: cache)
/// let alice = Person.create(in: combined, id: 1, name: "Alice")
/// print(alice.name) // read from the cache
/// ```
///
/// Reads ask the cache first; a miss reads the wrapped database and caches what it returns.
/// A missing value (`nil`) is not cached, so a miss always reaches the wrapped database.
/// Writes go to the wrapped database, then update the cache — or drop the cached value when
/// another write of the path overlapped (`CacheCoherence`). No lock is held while the
/// wrapped database works, so batches and plain calls on other threads never wait on each
/// other here. Listing instances with
/// `all(model:where:)` always asks the wrapped database.
///
/// When the wrapped database is a ``HistoryDatabase``, so is the cached one. A timestamped
/// write may not become the current value (an older record never replaces a newer one), so
/// writes to a history database drop the cached value instead of replacing it, and the next
/// read fetches whatever is current. Reads at a point in time (`get(_:at:)`) never use the
/// cache. Over a ``BatchDatabase`` it runs batches too, and keeps their uncommitted writes
/// out of the cache.
///
/// The cache answers only for values written through this database: after changing the
/// wrapped database directly, call `cache.removeAll()`. Writes and reads through the cache
/// inside a batch opened on the wrapped database itself (or a database under it: an
/// undoable batch, an editing context's pending edits) are not cached, so a batch that
/// throws leaves no value it took back in the cache. A cached value read with another
/// type than it was stored with converts with `as?` like the in-memory databases; when that
/// fails, the wrapped database answers, and a `nil` answer leaves the cached value as it was.
///
/// It is safe to use from any thread when the wrapped database is. It has the capabilities
/// of the wrapped database (history, batches, pruning, queries in SQL; see
/// ``DatabaseWrapper``), and model ids are checked against the wrapped database's, so two
/// model types with one id are caught whichever of the two they are used through.
public final class CachedDatabase<Base: Database>: DatabaseWrapper {

    /// The database that holds the data.
    public let base: Base

    /// The cache answering reads before the wrapped database.
    public let cache: any DatabaseCache

    /// `cache` when it is a ``MaximumCountCache``, whose hit path avoids a `Value?` temporary.
    private let countCache: MaximumCountCache?

    /// Whether the wrapped database keeps history, where a write need not become current.
    let keepsHistory: Bool

    /// When a value read or written may be cached, and the batches running now.
    let coherence = CacheCoherence()

    /// Whether `base` (or a database under its wrappers) can take writes back: a batch
    /// opened on it directly, an undoable batch that throws, a discarded editing context.
    private let takesWritesBack: Bool

    /// Creates a database that answers reads of `base` from `cache` when it can.
    ///
    /// ```swift
    /// let cached = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 10_000))
    /// ```
    ///
    /// Use a cache for one database only, and start with an empty one (or one that
    /// describes `base` exactly).
    public init(wrapping base: Base, cache: some DatabaseCache) {
        self.base = base
        self.cache = cache
        self.countCache = cache as? MaximumCountCache
        self.keepsHistory = base.historyDatabase != nil
        self.takesWritesBack = base.currentRollbackMark != nil
    }

    /// Whether a write made now may still be taken back by a batch this cache does not know
    /// of (one opened on the wrapped database directly, an editing context's discard): such
    /// a value is not cached.
    private var writesMayBeTakenBack: Bool {
        takesWritesBack && base.currentRollbackMark?.mayRollBack == true
    }

    /// Whether a value read now may be one the wrapped database still takes back.
    private var readsMayBeTakenBack: Bool {
        takesWritesBack && base.currentRollbackMark?.holdsUncommittedWrites == true
    }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        if let countCache {
            return countCache.value(at: path, as: Value.self) { readThrough(path) }
        }
        return getThroughAnyCache(path)
    }

    /// ``get(_:)`` with a cache of another type than ``MaximumCountCache``. Kept out of line
    /// with ``readThrough(_:)``: their `Value?` temporaries would cost a generic metadata
    /// lookup on every hit of a `MaximumCountCache` if they were part of ``get(_:)``.
    @inline(never)
    private func getThroughAnyCache<Value: DatabaseValue>(_ path: Path) -> Value? {
        if let cached = cache.value(at: path, as: Value.self) { return cached }
        return readThrough(path)
    }

    /// Reads a path that the cache did not answer from the wrapped database, and caches it.
    @inline(never)
    private func readThrough<Value: DatabaseValue>(_ path: Path) -> Value? {
        let ticket = coherence.readBegins(path)
        guard let value: Value = base.get(path) else { return nil }
        if readsMayBeTakenBack { return value }
        coherence.readEnded(ticket) { cache.store(value, for: path) }
        return value
    }

    /// The base's observers, as ``DatabaseWrapper``'s default, written here: a model's every
    /// read asks for them, and the default reached through a generic wrapper looked up
    /// `CachedDatabase`'s witness table first (≈300 instructions a read, issue 49).
    public var instanceObservers: InstanceObservers? { base.instanceObservers }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        let ticket = coherence.writeBegins(path)
        base.set(value, for: path)
        let tentative = writesMayBeTakenBack
        coherence.writeEnded(ticket) { mayStore in
            if mayStore, !keepsHistory, !tentative {
                cache.store(value, for: path)
            } else {
                cache.removeValue(at: path)
            }
        }
    }
}

// @unchecked: the cache is an existential; ``DatabaseCache`` asks for a cache that is safe
// from any thread wherever a cached database is shared, as Pathbase's own caches are.
extension CachedDatabase: @unchecked Sendable where Base: Sendable {}
