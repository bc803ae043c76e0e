extension CachedDatabase {

    /// StateModel's name for ``base``: the database whose values are cached.
    ///
    /// ```swift
    /// let wrapped = cached.database
    /// ```
    @available(*, deprecated, renamed: "base")
    public var database: Base { base }
}

/// StateModel's cache over a timestamped database: in Pathbase, ``CachedDatabase`` over a
/// ``HistoryDatabase`` is one, with timestamped reads and writes.
///
/// ```swift
/// let cached = CachedTimestampedDatabase(wrapping: InMemoryTimestampedDatabase(), cache: MaximumCountCache(maxCount: 1000))
/// ```
@available(*, deprecated, renamed: "CachedDatabase", message: "Use CachedDatabase(wrapping:cache:): over a history database it keeps history, timestamped reads and writes")
public typealias CachedTimestampedDatabase<Wrapped: HistoryDatabase> = CachedDatabase<Wrapped>

/// StateModel's database of timestamped current values: Pathbase's
/// ``InMemoryHistoryDatabase`` keeps every value with its timestamp, current or not.
@available(*, deprecated, renamed: "InMemoryHistoryDatabase")
public typealias InMemoryTimestampedDatabase = InMemoryHistoryDatabase
