// The accessors the `@Property(id:merge:)` macro generates calls to for a property with a
// merge policy. Public for generated code, underscored because users should not call them.
// Properties without a policy never reach them: their accessors are unchanged.

extension ModelProtocol {

    /// Reads a `.max` property: the largest value written, or the default when none is.
    @inlinable
    public func _$getMaximum<Value: Codable & Comparable>(_ property: PropertyKey, default defaultValue: @autoclosure () -> Value) -> Value {
        _$getMerged(property, as: MaximumValue<Value>.self)?.value ?? defaultValue()
    }

    /// Writes a `.max` property: keeps the larger of the stored and the new value.
    @inlinable
    public func _$setMaximum<Value: Codable & Comparable>(_ value: Value, _ property: PropertyKey) {
        _$setMerged(MaximumValue(value), property)
    }

    /// Reads a `.min` property: the smallest value written, or the default when none is.
    @inlinable
    public func _$getMinimum<Value: Codable & Comparable>(_ property: PropertyKey, default defaultValue: @autoclosure () -> Value) -> Value {
        _$getMerged(property, as: MinimumValue<Value>.self)?.value ?? defaultValue()
    }

    /// Writes a `.min` property: keeps the smaller of the stored and the new value.
    @inlinable
    public func _$setMinimum<Value: Codable & Comparable>(_ value: Value, _ property: PropertyKey) {
        _$setMerged(MinimumValue(value), property)
    }

    /// Reads a `.counter` property: the declared initial value plus every replica's
    /// increments minus its decrements.
    @inlinable
    public func _$getCounter(_ property: PropertyKey, default initialValue: Int) -> Int {
        initialValue &+ (_$getMerged(property, as: CounterValue.self)?.value ?? 0)
    }

    /// Writes a `.counter` property (`likes = 5`): the difference from the value it holds
    /// now is added to this replica's own contribution. Writing the value it already has
    /// writes nothing.
    @inlinable
    public func _$setCounter(_ value: Int, _ property: PropertyKey, default initialValue: Int) {
        let database = self.database
        let path = path(of: property)
        // The value it already has: no write, and no batch taking the file's write lock.
        if value == CounterValue.clamped(initialValue, plus: (database.get(path) as CounterValue?)?.value ?? 0) { return }
        _$atomically(on: database) {
            let stored: CounterValue = database.get(path) ?? CounterValue()
            let delta = CounterValue.change(from: CounterValue.clamped(initialValue, plus: stored.value), to: value)
            guard delta != 0 else { return }
            database.set(stored.adding(delta, by: _$mergeReplica(of: database)), for: path)
        }
    }

    /// Changes a `.counter` property in place (`likes += 1`): adds the change from the value
    /// read when the access began, so that increments made meanwhile — by other threads,
    /// or pulled from other replicas — all count.
    @inlinable
    public func _$modifyCounter(from old: Int, to new: Int, _ property: PropertyKey) {
        let delta = CounterValue.change(from: old, to: new)
        guard delta != 0 else { return }
        let database = self.database
        let path = path(of: property)
        _$atomically(on: database) {
            let stored: CounterValue = database.get(path) ?? CounterValue()
            database.set(stored.adding(delta, by: _$mergeReplica(of: database)), for: path)
        }
    }

    /// Reads the state of a property with a merge policy, telling observers.
    @inlinable
    public func _$getMerged<State: MergeableValue>(_ property: PropertyKey, as type: State.Type) -> State? {
        let database = self.database
        let path = path(of: property)
        if let observers = database.instanceObservers { observers.access(path) }
        return database.get(path)
    }

    /// Writes the join of the stored state and `state`; nothing when the stored state
    /// already holds it.
    @inlinable
    public func _$setMerged<State: MergeableValue>(_ state: State, _ property: PropertyKey) {
        MergeableTypes.register(State.self)
        let database = self.database
        let path = path(of: property)
        // Already held (a lower bid on a .max): no batch; states only grow, so it stays held.
        if let stored: State = database.get(path), stored.merged(with: state) == stored { return }
        _$atomically(on: database) {
            guard let stored: State = database.get(path) else {
                database.set(state, for: path)
                return
            }
            let merged = stored.merged(with: state)
            if merged != stored { database.set(merged, for: path) }
        }
    }
}

/// The replica id a database's own counter contributions are kept under, for generated code.
public func _$mergeReplica(of database: any Database) -> UInt32 {
    mergeReplica(of: database)
}

/// The type a `.max` property of type `Value` stores, for generated `_$propertyType`.
@inlinable
public func _$maximumStorage<Value: Codable & Comparable>(_ type: Value.Type) -> any DatabaseValue.Type {
    MaximumValue<Value>.self
}

/// The type a `.min` property of type `Value` stores, for generated `_$propertyType`.
@inlinable
public func _$minimumStorage<Value: Codable & Comparable>(_ type: Value.Type) -> any DatabaseValue.Type {
    MinimumValue<Value>.self
}

extension ModelProtocol {

    /// Reads a `.union` property: the elements present.
    @inlinable
    public func _$getUnion<Element: Hashable & Codable>(_ property: PropertyKey) -> Set<Element> {
        Set(_$getMerged(property, as: UnionValue<Element>.self)?.elements ?? [])
    }

    /// Writes a `.union` property: the elements missing are added as this replica's
    /// additions, the others removed (only the additions seen here).
    @inlinable
    public func _$setUnion<Element: Hashable & Codable>(_ elements: Set<Element>, _ property: PropertyKey) {
        _$changeUnion(to: elements, property)
    }

    /// Reads a `.union` reference list: handles to the referenced instances, in the order
    /// they were first added.
    @inlinable
    public func _$referenceListUnion<List: SequenceInitializable>(_ property: PropertyKey) -> List where List.Element: ModelProtocol {
        let database = self.database
        let ids = _$getMerged(property, as: UnionValue<InstanceKey>.self)?.elements ?? []
        return List(ids.lazy.map { List.Element(database: database, id: $0) })
    }

    /// Writes a `.union` reference list: instances missing are added, the others removed;
    /// the list keeps each instance once, in the order of addition.
    @inlinable
    public func _$setReferenceListUnion<List: Sequence>(_ list: List, _ property: PropertyKey) where List.Element: ModelProtocol {
        _$changeUnion(to: list.map(\.id), property)
    }

    /// Changes a `.union` state to hold exactly `elements`.
    @inlinable
    public func _$changeUnion<Element: Hashable & Codable>(to elements: some Sequence<Element>, _ property: PropertyKey) {
        MergeableTypes.register(UnionValue<Element>.self)
        let database = self.database
        let path = path(of: property)
        // Exactly the elements it holds: no write, and no batch.
        if ((database.get(path) as UnionValue<Element>?) ?? UnionValue()).changed(to: elements, by: 0) == nil { return }
        _$atomically(on: database) {
            let stored: UnionValue<Element> = database.get(path) ?? UnionValue()
            guard let changed = stored.changed(to: elements, by: _$mergeReplica(of: database)) else { return }
            database.set(changed, for: path)
        }
    }

    /// Changes a `.union` property in place (`tags.insert(x)`, `list.append(item)`): adds
    /// what was added since the access began and removes what was removed, so that
    /// elements added meanwhile — by other threads, or pulled — stay.
    @inlinable
    public func _$modifyUnion<Element: Hashable & Codable>(from old: some Sequence<Element>, to new: some Sequence<Element>, _ property: PropertyKey) {
        let before = Set(old), after = Set(new)
        let added = new.filter { !before.contains($0) }, removed = before.subtracting(after)
        guard !added.isEmpty || !removed.isEmpty else { return }
        MergeableTypes.register(UnionValue<Element>.self)
        let database = self.database
        let path = path(of: property)
        _$atomically(on: database) {
            let stored: UnionValue<Element> = database.get(path) ?? UnionValue()
            var changed = stored
            for element in removed { changed = changed.removing(element) }
            for element in added where !changed.contains(element) { changed = changed.inserting(element, by: _$mergeReplica(of: database)) }
            if changed != stored { database.set(changed, for: path) }
        }
    }

    /// Changes a `.union` reference list in place (see ``_$modifyUnion(from:to:_:)``).
    @inlinable
    public func _$modifyReferenceListUnion<List: Sequence>(from old: List, to new: List, _ property: PropertyKey) where List.Element: ModelProtocol {
        _$modifyUnion(from: old.map(\.id), to: new.map(\.id), property)
    }
}

/// The type a `.union` property of type `Set<Element>` stores, for generated `_$propertyType`.
@inlinable
public func _$unionStorage<Element: Hashable & Codable>(_ type: Set<Element>.Type) -> any DatabaseValue.Type {
    UnionValue<Element>.self
}
