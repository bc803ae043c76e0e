// A cache written for StateModel implements `get(_:)` and `set(_:for:)`; Pathbase's caches
// implement `value(at:as:)`, `store(_:for:)`, `removeValue(at:)` and `removeAll()`. Each
// side has defaults here in terms of the other. The defaults a StateModel cache relies on
// are deprecated, so its conformance gets a warning naming what Pathbase calls instead.

extension DatabaseCache {

    // MARK: StateModel's requirements, from Pathbase's

    /// The value cached for a path, if it is a `Value`: ``value(at:as:)``.
    @available(*, deprecated, message: "Pathbase names it value(at:as:)")
    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        value(at: path, as: Value.self)
    }

    /// Remembers a value for a path: ``store(_:for:)``.
    @available(*, deprecated, message: "Pathbase names it store(_:for:)")
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        store(value, for: path)
    }

    // MARK: Pathbase's requirements, from StateModel's

    /// A cache written for StateModel answers by `get(_:)`.
    @available(*, deprecated, message: "Implement value(at:as:), Pathbase's name for get(_:)")
    public func value<Value: DatabaseValue>(at path: Path, as type: Value.Type) -> Value? {
        get(path)
    }

    /// A cache written for StateModel remembers by `set(_:for:)`.
    @available(*, deprecated, message: "Implement store(_:for:), Pathbase's name for set(_:for:)")
    public func store<Value: DatabaseValue>(_ value: Value, for path: Path) {
        set(value, for: path)
    }

    /// A cache written for StateModel cannot forget an entry: the entry is overwritten with
    /// a marker of a type of its own, which a `get(_:)` that answers `entry as? Value`
    /// never returns, so the next read goes to the database.
    @available(*, deprecated, message: "Implement removeValue(at:), which CachedDatabase calls when a cached value may be out of date")
    public func removeValue(at path: Path) {
        set(ForgottenCacheEntry(), for: path)
    }

    /// A cache written for StateModel cannot be emptied: this does nothing. Implement it to
    /// empty the cache after changing the cached database directly.
    @available(*, deprecated, message: "Implement removeAll(): a cache written for StateModel cannot be emptied")
    public func removeAll() {}
}

/// What a cache written for StateModel holds for a path whose value ``CachedDatabase`` had
/// to forget: no read of a model's value type accepts it.
struct ForgottenCacheEntry: Codable, Sendable {}
