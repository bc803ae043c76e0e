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
        coherence.batchBegan()
        defer { coherence.batchEnded() }
        return try base.batch(body)
    }
}
