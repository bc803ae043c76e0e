import Foundation

// StateModel's conveniences of a history database by date: paths from their three ids, and
// instances created, found, listed and deleted as of a date. Each goes through the
// date-based requirements (`get(_:at:)`, `set(_:for:at:)`, `all(model:at:where:)`), so they
// work on Pathbase's databases and on one written for StateModel alike.
//
// As in StateModel, an instance they return is bound to the database itself: the date only
// decides whether it is returned, and reading its properties gives their current values.
// Pathbase's way to read everything as of a date is `database.view(at:)`.

extension HistoryDatabase {

    /// The newest value at a path with when it was written: `get(_:at:)` with `nil`.
    ///
    /// ```swift
    /// let title: Timestamped<String>? = database.get(path)
    /// ```
    @available(*, deprecated, message: "Use get(_:at: nil), or get(_:) for the value alone")
    public func get<Value: DatabaseValue>(_ path: Path) -> Timestamped<Value>? {
        get(path, at: nil as Timestamp?)
    }

    /// Every instance of a model with its newest status and when that was set:
    /// `all(model:at:where:)` with `nil`.
    @available(*, deprecated, message: "Use all(model:where:) for the status alone, or all(model:at:where:)")
    public func all<T>(model: ModelKey, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus, _ date: Date) -> T?) -> [T] {
        all(model: model, at: nil as Date?, where: predicate)
    }

    /// The newest value of a property written at or before `date` (the newest of all when
    /// `nil`), with when it was written.
    @available(*, deprecated, message: "Use get(_:at:) with a Path and a Timestamp, or read through view(at:)")
    public func get<Value: DatabaseValue>(model: ModelKey, instance: InstanceKey, property: PropertyKey, at date: Date?) -> Timestamped<Value>? {
        get(Path(model: model, instance: instance, property: property), at: date)
    }

    /// Stores a value of a property as written at `date` (now when `nil`).
    @available(*, deprecated, message: "Use set(_:for:) with a Path: Pathbase stamps writes with its clock")
    public func set<Value: DatabaseValue>(_ value: Value, model: ModelKey, instance: InstanceKey, property: PropertyKey, at date: Date?) {
        set(value, for: Path(model: model, instance: instance, property: property), at: date)
    }

    /// The newest value at a path written at or before `date`, of an explicitly named type.
    @available(*, deprecated, message: "Use get(_:at:) with a Timestamp, or read through view(at:)")
    public func get<Value: DatabaseValue>(_ path: Path, at date: Date?, of type: Value.Type) -> Timestamped<Value>? {
        get(path, at: date)
    }

    /// The instances of a model that existed (were created and not deleted) at `date`, and
    /// for which `predicate` holds.
    @available(*, deprecated, message: "Use view(at: date).all(where:)")
    public func all<Instance: ModelProtocol>(at date: Date?, where predicate: (Instance) -> Bool) -> [Instance] {
        all(model: Instance.modelId, at: date) { id, status, _ -> Instance? in
            guard status == .created else { return nil }
            let instance = Instance(database: self, id: id)
            return predicate(instance) ? instance : nil
        }
    }

    /// The instances of a model that existed at `date`.
    @available(*, deprecated, message: "Use view(at: date).all(of:)")
    public func all<Instance: ModelProtocol>(at date: Date?, of type: Instance.Type) -> [Instance] {
        all(at: date) { (_: Instance) in true }
    }

    /// Creates an instance as of `date` (now when `nil`): its status is set at that date.
    @available(*, deprecated, message: "Use create(id:of:): Pathbase stamps writes with its clock")
    @discardableResult
    public func create<Instance: ModelProtocol>(id: InstanceKey, at date: Date?, of type: Instance.Type = Instance.self) -> Instance {
        set(InstanceStatus.created, for: .status(model: Instance.modelId, instance: id), at: date)
        return Instance(database: self, id: id)
    }

    /// The instance with an id if it had a status (created or deleted) at `date`.
    @available(*, deprecated, message: "Use view(at: date).get(id:of:)")
    public func get<Instance: ModelProtocol>(id: InstanceKey, at date: Date?, of type: Instance.Type = Instance.self) -> Instance? {
        let status: Timestamped<InstanceStatus>? = get(.status(model: Instance.modelId, instance: id), at: date)
        return status == nil ? nil : Instance(database: self, id: id)
    }

    /// The instance with an id if it existed (created, not deleted) at `date`.
    @available(*, deprecated, message: "Use view(at: date).active(id:of:)")
    public func active<Instance: ModelProtocol>(id: InstanceKey, at date: Date?, of type: Instance.Type = Instance.self) -> Instance? {
        let status: Timestamped<InstanceStatus>? = get(.status(model: Instance.modelId, instance: id), at: date)
        return status?.value == .created ? Instance(database: self, id: id) : nil
    }

    /// The instance with an id if it had a status at `date`, else one created as of `date`.
    @available(*, deprecated, message: "Use getOrCreate(id:of:)")
    public func getOrCreate<Instance: ModelProtocol>(id: InstanceKey, at date: Date?, of type: Instance.Type = Instance.self) -> Instance {
        get(id: id, at: date) ?? create(id: id, at: date)
    }

    /// Deletes an instance as of `date` (now when `nil`).
    @available(*, deprecated, message: "Use delete(_:): Pathbase stamps writes with its clock")
    public func delete<Instance: ModelProtocol>(_ instance: Instance, at date: Date?) {
        set(InstanceStatus.deleted, for: .status(model: Instance.modelId, instance: instance.id), at: date)
    }
}
