/// Creating, fetching, listing and deleting model instances — for every database.
extension Database {

    /// Creates an instance (or marks an existing one created again) and returns it.
    ///
    /// ```swift
    /// let model: MyModel = database.create(id: 123)
    /// let other = database.create(id: 5, of: OtherModel.self)
    /// ```
    ///
    /// Properties of an instance that existed before keep their values. The first create of
    /// a model type in an `SQLiteDatabase` file also records the type's name and property
    /// names in the file's catalog, for tools (``modelDescription(of:)``).
    @discardableResult
    public func create<Model: ModelProtocol>(id: InstanceKey, of type: Model.Type = Model.self) -> Model {
        checkCreatedModelType(type)
        set(InstanceStatus.created, for: Path.status(model: Model.modelId, instance: id))
        return Model(database: self, id: id)
    }

    /// Returns the instance with an id if it was ever created, deleted or not.
    ///
    /// ```swift
    /// let other: MyModel? = database.get(id: 123)
    /// ```
    public func get<Model: ModelProtocol>(id: InstanceKey, of type: Model.Type = Model.self) -> Model? {
        checkModelType(type)
        switch storedStatus(of: type, id: id) {
        case .created, .deleted: return Model(database: self, id: id)
        case .notCreated: return nil
        }
    }

    /// Returns the instance with an id if it exists and is not deleted.
    public func active<Model: ModelProtocol>(id: InstanceKey, of type: Model.Type = Model.self) -> Model? {
        checkModelType(type)
        return storedStatus(of: type, id: id) == .created ? Model(database: self, id: id) : nil
    }

    /// Returns the instance with an id, creating it (or restoring it, if deleted) when it
    /// is not active.
    public func getOrCreate<Model: ModelProtocol>(id: InstanceKey, of type: Model.Type = Model.self) -> Model {
        active(id: id, of: type) ?? create(id: id, of: type)
    }

    /// Returns every active (created, not deleted) instance of a model, in no fixed order.
    ///
    /// ```swift
    /// let people = database.all(of: Person.self)
    /// ```
    public func all<Model: ModelProtocol>(of type: Model.Type = Model.self) -> [Model] {
        checkModelType(type)
        return all(model: Model.modelId) { instance, status in
            status == .created ? Model(database: self, id: instance) : nil
        }
    }

    /// Returns the active instances of a model for which `isIncluded` is true.
    ///
    /// ```swift
    /// let adults = database.all(Person.self) { $0.age >= 18 }
    /// ```
    public func all<Model: ModelProtocol>(_ type: Model.Type = Model.self, where isIncluded: (Model) -> Bool) -> [Model] {
        all(of: type).filter(isIncluded)
    }

    /// Marks an instance deleted; same as `model.delete()`.
    public func delete<Model: ModelProtocol>(_ model: Model) {
        set(InstanceStatus.deleted, for: Path.status(model: Model.modelId, instance: model.id))
    }

    private func storedStatus<Model: ModelProtocol>(of type: Model.Type, id: InstanceKey) -> InstanceStatus {
        get(Path.status(model: Model.modelId, instance: id)) ?? .notCreated
    }
}
