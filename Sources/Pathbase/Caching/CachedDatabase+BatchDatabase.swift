/// A cached database runs batches in the wrapped database, and keeps uncommitted values out
/// of the cache.
///
/// ```swift
/// let database = CachedDatabase(wrapping: try SQLiteDatabase(path: path), cache: MaximumCountCache(maxCount: 10_000))
/// try database.batch {
///     order.status = "paid"
///     invoice.paid = true
/// }
/// ```
///
/// While any batch runs, writes drop the cached values of their paths instead of replacing
/// them, and misses are not cached, so the cache never shows a value that a failing batch
/// takes back, to this thread or any other. Caching resumes when the last batch ends.
extension CachedDatabase: BatchDatabase where Base: BatchDatabase {

    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        batches.begin()
        defer { batches.end() }
        return try base.batch(body)
    }
}

/// Counts the batches running in a ``CachedDatabase``.
final class BatchCounter: @unchecked Sendable {

    private let lock = Lock()
    private var running = 0

    func begin() {
        lock.withLock { running += 1 }
    }

    func end() {
        lock.withLock { running -= 1 }
    }

    /// Whether a batch is running; values written or read now must not be cached.
    var isRunning: Bool {
        lock.withLock { running > 0 }
    }
}
