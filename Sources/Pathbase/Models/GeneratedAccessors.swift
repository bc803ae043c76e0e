// The functions the macros generate calls to. They are public because generated code in
// user modules calls them, and underscored because users should not.
//
// Reads tell the database's observers (``InstanceObservers``) about the read when the
// database is observed; writes need nothing here: the observed database notifies when it
// is written, whoever writes.

extension ModelProtocol {

    /// Reads a `@Property` whose type has a natural default.
    @inlinable
    public func _$get<Value: DatabaseValue & Defaultable>(_ property: PropertyKey) -> Value {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        return database.get(path) ?? Value.defaultValue
    }

    /// Reads a `@Property` with an explicit default.
    @inlinable
    public func _$get<Value: DatabaseValue>(_ property: PropertyKey, default defaultValue: @autoclosure () -> Value) -> Value {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        return database.get(path) ?? defaultValue()
    }

    /// Reads a `@Property` of an `Optional` type with an explicit default.
    ///
    /// A database written as `values[path] as? Value` (the seed's custom database) answers
    /// `.some(nil)` both for a stored `nil` and for nothing stored: a cast of a missing
    /// `Any?` to an `Optional` type succeeds. On such a database (``_$conflatesNil(_:)``)
    /// `.some(nil)` is read as nothing stored, so the declared default applies, and a
    /// written `nil` is the ``_StoredNil`` marker (see the `Optional` `_$set`).
    @inlinable
    public func _$get<Wrapped: DatabaseValue>(_ property: PropertyKey, default defaultValue: @autoclosure () -> Wrapped?) -> Wrapped? {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        switch database.get(path) as Wrapped?? {
        case .some(.some(let value)):
            return value
        case .some(.none):
            return _$conflatesNil(database) ? defaultValue() : nil
        case .none:
            // Nothing stored, a value of another type, or the marker of a written nil
            // (only on a database that conflates nil: others never store the marker).
            guard _$conflatesNil(database) else { return defaultValue() }
            return database.get(path) as _StoredNil? != nil ? nil : defaultValue()
        }
    }

    /// Writes a `@Property`.
    @inlinable
    public func _$set<Value: DatabaseValue>(_ value: Value, _ property: PropertyKey) {
        database.set(value, for: path(of: property))
    }

    /// Writes a `@Property` of an `Optional` type: `nil` as a stored `nil`, or as the
    /// ``_StoredNil`` marker on a database that can't tell a stored `nil` from nothing.
    @inlinable
    public func _$set<Wrapped: DatabaseValue>(_ value: Wrapped?, _ property: PropertyKey) {
        let database = self.database
        if value == nil, _$conflatesNil(database) {
            database.set(_StoredNil(), for: path(of: property))
        } else {
            database.set(value, for: path(of: property))
        }
    }

    /// Reads a `@Reference`: a handle to the referenced instance, without creating it.
    @inlinable
    public func _$reference<Target: ModelProtocol>(_ property: PropertyKey) -> Target? {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        let stored: InstanceKey?? = database.get(path)
        guard let instance = stored ?? nil else { return nil }
        return Target(database: database, id: instance)
    }

    /// Writes a `@Reference`.
    @inlinable
    public func _$setReference<Target: ModelProtocol>(_ target: Target?, _ property: PropertyKey) {
        database.set(target?.id, for: path(of: property))
    }

    /// Reads a `@ReferenceList`: handles to the referenced instances, in stored order.
    @inlinable
    public func _$referenceList<List: SequenceInitializable>(_ property: PropertyKey) -> List where List.Element: ModelProtocol {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        let ids: [InstanceKey] = database.get(path) ?? []
        return List(ids.lazy.map { List.Element(database: database, id: $0) })
    }

    /// Writes a `@ReferenceList`.
    @inlinable
    public func _$setReferenceList<List: Sequence>(_ list: List, _ property: PropertyKey) where List.Element: ModelProtocol {
        database.set(list.map(\.id), for: path(of: property))
    }

    /// Reads a `@ReferenceDictionary`: a handle to the referenced instance of every key.
    @inlinable
    public func _$referenceDictionary<Key: Hashable & Codable, Target: ModelProtocol>(_ property: PropertyKey) -> [Key: Target] {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        let ids: [Key: InstanceKey] = database.get(path) ?? [:]
        return ids.mapValues { Target(database: database, id: $0) }
    }

    /// Writes a `@ReferenceDictionary`.
    @inlinable
    public func _$setReferenceDictionary<Key: Hashable & Codable, Target: ModelProtocol>(_ dictionary: [Key: Target], _ property: PropertyKey) {
        database.set(dictionary.mapValues(\.id), for: path(of: property))
    }
}

/// The type a `@ReferenceDictionary` of type `[Key: Target]` stores: `[Key: InstanceKey]`,
/// for generated `_$propertyType`.
@inlinable
public func _$referenceDictionaryStorage<Key: Hashable & Codable, Target: ModelProtocol>(_ type: [Key: Target].Type) -> any DatabaseValue.Type {
    [Key: InstanceKey].self
}

/// The natural default of a type, for generated `deleteAndClearProperties()`.
@inlinable
public func _$defaultValue<Value: Defaultable>() -> Value {
    Value.defaultValue
}

/// An empty reference list, for generated `deleteAndClearProperties()`.
@inlinable
public func _$emptyList<List: SequenceInitializable>() -> List {
    List(EmptyCollection())
}
