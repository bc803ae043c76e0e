/// StateModel's cache over a history database: in Pathbase, ``CachedDatabase`` over a
/// ``HistoryDatabase`` is a history database itself.
///
/// ```swift
/// let database = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 1000))
/// ```
///
/// Code written for StateModel, `CachedHistoryDatabase(wrapping:cache:)`, builds that same
/// ``CachedDatabase``; reads at a point in time and the history go to the wrapped database.
@available(*, deprecated, renamed: "CachedDatabase", message: "Use CachedDatabase(wrapping:cache:): over a history database it keeps history, timestamped reads and writes")
public typealias CachedHistoryDatabase<Wrapped: HistoryDatabase> = CachedDatabase<Wrapped>
