/// The names a database records for one model's paths, as tools show them: a Codable
/// collection's name and fields, or a `@Model` type's name and properties from the file's
/// catalog (``ModelDescription``); nothing for a model written without either.
///
/// ```swift
/// let names = database.recordedNames(of: 1)
/// print("model \(names.label(of: 1))", names.propertyName(2) ?? "property 2")
/// ```
public struct RecordedNames: Sendable, Equatable {

    /// The collection the model key belongs to, if any.
    public let collection: CollectionSummary?

    /// What the catalog records about the `@Model` type with this id, if anything.
    public let model: ModelDescription?

    /// Names from a collection's summary or a model's description.
    public init(collection: CollectionSummary?, model: ModelDescription?) {
        self.collection = collection
        self.model = model
    }

    /// The model's name: the collection's or the type's; `nil` when none is recorded.
    public var modelName: String? {
        collection?.name ?? model?.name
    }

    /// How tools follow the word "model": `1 (Person)`, `1234567 (collection users)`, or `1`
    /// when no name is recorded.
    public func label(of model: ModelKey) -> String {
        if let collection { return "\(model) (collection \(collection.name))" }
        if let name = self.model?.name { return "\(model) (\(name))" }
        return "\(model)"
    }

    /// A property's name: a field's or stored property's, `"status"` for the instance status;
    /// `nil` when none is recorded.
    public func propertyName(_ property: PropertyKey) -> String? {
        if property == PropertyKey.instanceId { return "status" }
        return collection?.propertyName(property) ?? model?.propertyName(property)
    }
}

extension Database {

    /// The names recorded for a model's paths: its collection's, or its `@Model` type's from
    /// the catalog (a read of the collections' catalog: for tools, not hot paths).
    public func recordedNames(of model: ModelKey) -> RecordedNames {
        let collection = collectionSummaries().first { $0.model == model }
        return RecordedNames(collection: collection, model: collection == nil ? modelDescription(of: model) : nil)
    }
}
