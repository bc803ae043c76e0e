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
extension CachedDatabase: HistoryDatabase where Base: HistoryDatabase {

    /// Writes through to the wrapped database and drops the cached value of the path.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        let ticket = coherence.writeBegins(path)
        base.set(value, for: path, timestamp: timestamp)
        coherence.writeEnded(ticket) { _ in cache.removeValue(at: path) }
    }
}

/// A cached prunable database prunes the wrapped one; pruning keeps every current value,
/// so the cache stays valid.
extension CachedDatabase: PrunableHistoryDatabase where Base: PrunableHistoryDatabase {}

/// Records withdrawn under the cache (a batch taken back by ``UndoableDatabase``): their
/// paths' cached values go, and the next read fetches what is current.
extension CachedDatabase: RecordWithdrawingDatabase where Base: RecordWithdrawingDatabase {

    package func withdraw(_ records: [SyncRecord.Key]) {
        let tickets = records.map { coherence.writeBegins($0.path) }
        base.withdraw(records)
        for (record, ticket) in zip(records, tickets) {
            coherence.writeEnded(ticket) { _ in cache.removeValue(at: record.path) }
        }
    }
}
