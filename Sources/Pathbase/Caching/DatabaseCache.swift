/// A store of recently used values by ``Path``, which ``CachedDatabase`` consults before
/// reading the database it wraps.
///
/// Pathbase provides ``MaximumCountCache``; implement this protocol for another policy
/// (by age, by memory size, per model, ...):
///
/// ```swift
/// final class UnboundedCache: DatabaseCache, @unchecked Sendable {
///     private let lock = NSLock()
///     private var values: [Path: any DatabaseValue] = [:]
///
///     func value<Value: DatabaseValue>(at path: Path, as type: Value.Type) -> Value? {
///         lock.withLock { values[path].flatMap { $0 as? Value } }
///     }
///
///     func store<Value: DatabaseValue>(_ value: Value, for path: Path) {
///         lock.withLock { values[path] = value }
///     }
///
///     func removeValue(at path: Path) {
///         lock.withLock { values[path] = nil }
///     }
///
///     func removeAll() {
///         lock.withLock { values.removeAll() }
///     }
/// }
///
/// let database = CachedDatabase(wrapping: InMemoryDatabase(), cache: UnboundedCache())
/// ```
///
/// A cache only remembers values; ``CachedDatabase`` decides when to fill it and when to
/// update or drop an entry, so that the cache never answers with anything but the wrapped
/// database's current value. A cache may forget any entry at any time (that is what
/// eviction is). It must be safe to call from any thread when the cached database is
/// shared between threads: guard its state with a lock (the protocol does not require
/// `Sendable`, so that caches written for StateModel, used from one thread, conform too).
///
/// A cache written for StateModel implements `get(_:)` and `set(_:for:)` instead; each pair
/// has defaults in terms of the other, and ``removeValue(at:)`` then overwrites the entry
/// with a marker that no read accepts as a value. Implement one of the two pairs: a type
/// that implements neither would call the two sets of defaults in turn forever.
public protocol DatabaseCache: AnyObject {

    /// Returns the value cached for a path, or `nil` if none is cached or the cached value
    /// is not a `Value`.
    ///
    /// `nil` makes ``CachedDatabase`` read the wrapped database, so answering `nil` is
    /// always safe. When `Value` is an `Optional`, a cached `nil` is returned as `.some(nil)`.
    func value<Value: DatabaseValue>(at path: Path, as type: Value.Type) -> Value?

    /// Remembers `value` as the current value of a path, replacing any cached one.
    func store<Value: DatabaseValue>(_ value: Value, for path: Path)

    /// Forgets the value cached for a path, if any.
    func removeValue(at path: Path)

    /// Forgets every cached value.
    func removeAll()

    /// StateModel's ``value(at:as:)``: the value cached for a path, if it is a `Value`.
    @available(*, deprecated, message: "Pathbase names it value(at:as:)")
    func get<Value: DatabaseValue>(_ path: Path) -> Value?

    /// StateModel's ``store(_:for:)``: remembers a value for a path.
    @available(*, deprecated, message: "Pathbase names it store(_:for:)")
    func set<Value: DatabaseValue>(_ value: Value, for path: Path)
}
