#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif
import Observation

/// A model type whose instances live in a ``Database``.
///
/// Attach `@Model(id:)` to a class to conform it; the macro generates every requirement:
///
/// ```swift
/// @Model(id: 1)
/// final class Person {
///     @Property(id: 1)
///     var name: String
/// }
/// ```
///
/// An instance is a cheap handle — a database and an instance id — whose properties read
/// and write the database directly. Two handles of the same instance in the same database
/// are equal and see the same values.
///
/// Models are `ObservableObject`s and `Observable`s: in an ``ObservableDatabase`` they
/// notify their observers of changes (see ``objectWillChange``).
public protocol ModelProtocol: AnyObject, Identifiable, Hashable, ObservableObject, Observation.Observable where ID == InstanceKey {

    /// The id of this model type, unique among the models stored in one database.
    static var modelId: ModelKey { get }

    /// The database this instance lives in.
    var database: any Database { get }

    /// The id of this instance, unique among the instances of its model.
    var id: InstanceKey { get }

    /// Creates a handle to an instance. It does not write anything: use
    /// ``Database/create(id:of:)`` to create an instance in a database.
    init(database: any Database, id: InstanceKey)

    /// Writes the default value of every property, then marks the instance deleted, so
    /// that creating an instance with the same id later starts from defaults.
    func deleteAndClearProperties()

    /// The type a stored property keeps its values as, by property id: the declared type
    /// of a `@Property`, `InstanceKey?` for a `@Reference`, `[InstanceKey]` for a
    /// `@ReferenceList`; `nil` for an id the model does not store.
    ///
    /// `@Model` generates it; synchronization uses it to decode received values. The
    /// default returns `nil`, so a hand-written model syncs only its instance statuses.
    static func _$propertyType(_ property: PropertyKey) -> (any DatabaseValue.Type)?

    /// Decodes the arguments of a `@Command` and returns the call to run, or `nil` if the
    /// model has no command with this id.
    ///
    /// `@Model` generates it from the model's `@Command` functions; ``StateClient`` and
    /// ``RequestProcessor`` call it. Decoding never runs the command: a decoding error
    /// leaves everything unchanged.
    func _$command(_ command: CommandKey, arguments: inout any UnkeyedDecodingContainer) throws -> (() throws -> Void)?

    /// The property id of a stored property, by key path (`\Person.name` → its id); `nil`
    /// for other key paths.
    ///
    /// `@Model` generates it; ``QueryFilter`` uses it to run conditions inside the database.
    /// The default returns `nil`, so filters on a hand-written model run in memory.
    static func _$propertyKey(for keyPath: AnyKeyPath) -> PropertyKey?

    /// The type's name and its stored properties' names, kinds and reference targets, which
    /// a database file's catalog records for tools (``ModelDescription``).
    ///
    /// `@Model` generates it. The default names the type and no property.
    static var _$description: ModelDescription { get }
}

extension ModelProtocol {

    /// The path of a property of this instance.
    @inlinable
    public func path(of property: PropertyKey) -> Path {
        Path(model: Self.modelId, instance: id, property: property)
    }

    /// Whether this instance exists, was deleted, or was never created in its database.
    public var status: InstanceStatus {
        let database = self.database
        let path = path(of: .instanceId)
        if let observers = database.instanceObservers { observers.access(path) }
        let status: InstanceStatus? = database.get(path)
        return status ?? .notCreated
    }

    /// Marks the instance deleted. Its property values stay; ``insert()`` restores it.
    public func delete() {
        database.set(InstanceStatus.deleted, for: path(of: .instanceId))
    }

    /// Marks the instance created: restores a deleted instance with its previous values.
    public func insert() {
        database.set(InstanceStatus.created, for: path(of: .instanceId))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.database === rhs.database
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(Self.modelId)
        hasher.combine(id)
        hasher.combine(ObjectIdentifier(database))
    }
}
