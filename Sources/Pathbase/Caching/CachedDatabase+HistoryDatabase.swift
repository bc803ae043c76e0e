/// A cached history database: history, timestamped writes and reads at a point in time go
/// to the wrapped database.
///
/// ```swift
/// let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 1000))
/// let before = database.clock.now()
/// database.set("new", for: path)
/// let old: Timestamped<String>? = database.get(path, at: before) // never from the cache
/// ```
///
/// The cache holds current values only, without their timestamps, so it never answers a read
/// at a timestamp. A timestamped write drops the cached value of its path: the record becomes
/// current only if it is the newest, and the next read fetches whichever is.
extension CachedDatabase: HistoryDatabase where Wrapped: HistoryDatabase {

    /// The wrapped database's clock, which stamps writes.
    public var clock: HybridLogicalClock { wrapped.clock }

    /// Reads the wrapped database: the cache knows no timestamps.
    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        wrapped.get(path, at: timestamp)
    }

    /// Writes through to the wrapped database and drops the cached value of the path.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        pathLocks.lock(for: path).withLock {
            wrapped.set(value, for: path, timestamp: timestamp)
            cache.removeValue(at: path)
        }
    }

    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        wrapped.all(model: model, at: timestamp, where: predicate)
    }

    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        wrapped.records(after: timestamp, limit: limit)
    }

    public func records(at path: Path) -> [Record] {
        wrapped.records(at: path)
    }

    public func latestRecord(at path: Path) -> Record? {
        wrapped.latestRecord(at: path)
    }

    public var historyStart: Timestamp? { wrapped.historyStart }
}

/// A cached history database keeps history when the wrapped database does: not over an
/// ``ObservableDatabase`` of a database without history.
extension CachedDatabase: HistoryForwardingDatabase where Wrapped: HistoryDatabase {}

/// A cached prunable database prunes the wrapped one; pruning keeps every current value,
/// so the cache stays valid.
extension CachedDatabase: PrunableHistoryDatabase where Wrapped: PrunableHistoryDatabase {

    public func prune(before timestamp: Timestamp) throws {
        try wrapped.prune(before: timestamp)
    }
}
