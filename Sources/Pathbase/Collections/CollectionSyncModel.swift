import Foundation

/// The model type that synchronizes collections: give it to ``UpdateConsumer`` and
/// ``RequestProcessor`` for a collection's model key, and request with the collection.
///
/// ```swift
/// func mapIdToModel(modelId: Int) -> (any ModelProtocol.Type)? {
///     modelId == users.modelKey ? CollectionSyncModel.self : nil
/// }
/// let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
/// let result = try consumer.apply(modelUpdate: producer.process(request: consumer.modelUpdateRequest(for: users, limit: 500)))
/// ```
///
/// Values travel as the types of the struct's fields, which every collection created in
/// this process registers (the receiving side must have created its collection before it
/// applies records). Fields are paths, so edits of different fields on two replicas both
/// survive, and edits of one field converge to the newest.
public final class CollectionSyncModel: ModelProtocol, @unchecked Sendable {
    // @unchecked: both stored properties are constants; as safe across threads as `database`.

    /// Unused: collections are requested by their own model key.
    public static var modelId: ModelKey { CollectionKeys.catalogModel }

    /// The database the instance is read from.
    public let database: any Database

    /// The instance key.
    public let id: InstanceKey

    /// A handle of an instance; sync makes these, apps use the collection.
    public init(database: any Database, id: InstanceKey) {
        self.database = database
        self.id = id
    }

    /// Collections have no model-level reset; deleting goes through the collection.
    public func deleteAndClearProperties() {}

    /// The stored type of a collection field, as registered by the collections of this process.
    public static func _$propertyType(_ property: PropertyKey) -> (any DatabaseValue.Type)? {
        CollectionFieldTypes.shared.type(of: property)
    }
}

/// The stored type of every collection field this process knows, by property key (keys
/// derive from the collection name and the coding key, so they don't clash across
/// collections).
final class CollectionFieldTypes: Sendable {

    static let shared = CollectionFieldTypes()

    private let types = Locked<[PropertyKey: any DatabaseValue.Type]>([
        CollectionKeys.originProperty: String.self,
        CollectionKeys.fieldsProperty: [String].self
    ])

    func type(of property: PropertyKey) -> (any DatabaseValue.Type)? {
        types.withLock { $0[property] }
    }

    func register(_ type: any DatabaseValue.Type, for property: PropertyKey) {
        types.withLock { $0[property] = type }
    }
}

extension UpdateConsumer {

    /// A request for one page of at most `limit` records of a collection (see
    /// ``modelUpdateRequest(for:after:limit:startingAt:)``, which this mirrors).
    ///
    /// ```swift
    /// let request = try consumer.modelUpdateRequest(for: users, after: cursor, limit: 500)
    /// ```
    public func modelUpdateRequest<Element>(for collection: CodableCollection<Element>, after cursor: SyncCursor? = nil, limit: Int, startingAt page: SyncCursor? = nil) throws(SyncError) -> Data {
        guard modelMap(collection.modelKey) != nil else { throw .unknownModel(collection.modelKey) }
        guard limit > 0 else { throw .invalidLimit(limit) }
        return try encoder.encodeMessage(.modelUpdateRequest, ModelUpdateRequest(model: collection.modelKey, after: page ?? cursor, limit: limit))
    }
}
