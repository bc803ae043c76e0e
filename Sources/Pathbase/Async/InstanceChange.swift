/// A change of one instance of a model: which instance, and which of its properties was
/// written.
///
/// Change streams deliver these instead of model handles, which are not `Sendable`; fetch
/// the instance by ``id`` where you use it:
///
/// ```swift
/// for await change in try database.changes(of: Person.self) {
///     let person: Person? = database.get(id: change.id)
/// }
/// ```
public struct InstanceChange<Model: ModelProtocol>: Hashable, Sendable {

    /// The id of the instance that changed.
    public let id: InstanceKey

    /// The property written: `PropertyKey/instanceId` for the instance's status (created,
    /// deleted, restored).
    public let property: PropertyKey

    /// Whether the instance was created, deleted or restored, rather than a property set.
    public var isStatusChange: Bool { property == PropertyKey.instanceId }

    /// A change of the instance `id` at `property`.
    public init(id: InstanceKey, property: PropertyKey) {
        self.id = id
        self.property = property
    }
}

/// A change a stream builds from a written path: lets the stream's closures name only the
/// change's type, which is `Sendable`, not a model type.
package protocol PathChange: Sendable {
    init(id: InstanceKey, property: PropertyKey)
}

extension InstanceChange: PathChange {}
