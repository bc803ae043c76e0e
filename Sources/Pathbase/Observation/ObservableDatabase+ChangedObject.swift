extension ObservableDatabase {

    /// Tells the observers of an instance that its values changed, after they were written
    /// to the wrapped database directly rather than through this one.
    ///
    /// ```swift
    /// let base = InMemoryHistoryDatabase()
    /// let database = ObservableDatabase(wrapping: base)
    /// base.set("Bob", for: Path(model: Person.modelId, instance: 1, property: Person.PropertyId.name))
    /// database.updateChangedObject(model: Person.modelId, instance: 1) // views of person 1 refresh
    /// ```
    ///
    /// Writes through this database notify by themselves; call this only for writes that
    /// bypass it. The instance's `objectWillChange` fires; `withObservationTracking`, SwiftUI,
    /// ``changes`` and live queries hear of the instance's status and of every property of
    /// its model type, as far as this process knows the type (``ModelRegistry``): a type used
    /// with any database, or registered, is known.
    public func updateChangedObject(model: ModelKey, instance: InstanceKey) {
        guard let observers = instanceObservers else { return }
        for path in ObservableDatabase.paths(model: model, instance: instance) {
            observers.write(path) {}
        }
    }

    /// The status path of an instance and the paths of its model's stored properties.
    private static func paths(model: ModelKey, instance: InstanceKey) -> [Path] {
        let properties = (ModelRegistry.shared.type(for: model) as? any ModelWithPropertyIds.Type)?.storedPropertyKeys ?? []
        return [.status(model: model, instance: instance)] + properties.map { Path(model: model, instance: instance, property: $0) }
    }
}

extension ModelWithPropertyIds {

    /// The ids of the model's stored properties, from its generated `PropertyId` enum.
    static var storedPropertyKeys: [PropertyKey] {
        PropertyId.allCases.map(\.rawValue)
    }
}
