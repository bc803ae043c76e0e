// StateModel's conveniences of any database (its `Database+Default.swift`): reads and writes
// that name the value's type, and paths from their three ids. Each goes through the
// requirements `get(_:)` and `set(_:for:)`, so they work on every database.

extension Database {

    /// The current value at a path, of an explicitly named type: `get(_:)` where the type
    /// cannot be inferred from the context.
    ///
    /// ```swift
    /// let count = database.get(path, of: Int.self) ?? 0
    /// ```
    @inline(__always)
    public func get<Value: DatabaseValue>(_ path: Path, of type: Value.Type) -> Value? {
        get(path)
    }

    /// Stores a value at a path as an explicitly named type: `set(_:for:)` where the type of
    /// `value` would otherwise be inferred as another one (a literal, an optional).
    ///
    /// ```swift
    /// database.set(nil, for: path, of: String?.self)
    /// ```
    @inline(__always)
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, of type: Value.Type) {
        set(value, for: path)
    }

    /// The current value of a property given by its three ids.
    ///
    /// ```swift
    /// let title: String? = database.get(model: 1, instance: 7, property: 2)
    /// ```
    @inline(__always)
    public func get<Value: DatabaseValue>(model: ModelKey, instance: InstanceKey, property: PropertyKey, of type: Value.Type = Value.self) -> Value? {
        get(Path(model: model, instance: instance, property: property))
    }

    /// Stores the value of a property given by its three ids.
    ///
    /// ```swift
    /// database.set("Dune", model: 1, instance: 7, property: 2)
    /// ```
    @inline(__always)
    public func set<Value: DatabaseValue>(_ value: Value, model: ModelKey, instance: InstanceKey, property: PropertyKey, of type: Value.Type = Value.self) {
        set(value, for: Path(model: model, instance: instance, property: property))
    }
}
