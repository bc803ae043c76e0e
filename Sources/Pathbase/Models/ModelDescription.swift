/// What a database file's catalog records about a `@Model` type, so that tools show names
/// instead of ids: the type's name and, per stored property, its id, name, kind, declared
/// type and (for references) the model id it points to.
///
/// ```swift
/// if let person = database.modelDescription(of: Person.modelId) {
///     print(person.name, person.properties.map(\.name)) // Person ["name", "partner"]
/// }
/// ```
///
/// `@Model` generates each type's description; an `SQLiteDatabase` file records it the first
/// time the process creates an instance of the type in it (see ``Database/modelDescription(of:)``).
public struct ModelDescription: Codable, Hashable, Sendable {

    /// One stored property of a model.
    public struct Property: Codable, Hashable, Sendable {

        /// What kind of stored property it is.
        public enum Kind: String, Codable, Hashable, Sendable {
            /// A `@Property`: a value.
            case property
            /// A `@Reference`: one instance of another model.
            case reference
            /// A `@ReferenceList`: instances of another model, in order.
            case referenceList
            /// A `@ReferenceDictionary`: instances of another model by key.
            case referenceDictionary
        }

        /// The property id (`@Property(id:)`).
        public var id: PropertyKey

        /// The property's name in the Swift source.
        public var name: String

        /// What kind of stored property it is.
        public var kind: Kind

        /// The declared Swift type of a `@Property` (`"String"`, `"[Int]"`); `nil` for references.
        public var type: String?

        /// The model id a reference, reference list or reference dictionary points to.
        public var target: ModelKey?

        /// Describes a property.
        public init(id: PropertyKey, name: String, kind: Kind, type: String? = nil, target: ModelKey? = nil) {
            self.id = id
            self.name = name
            self.kind = kind
            self.type = type
            self.target = target
        }
    }

    /// The reserved model id under which a file records descriptions: one instance per
    /// described model (its model id), property 1 the description. Tools name it as
    /// bookkeeping rather than list it as an app's model.
    public static var catalogModel: ModelKey { ModelCatalog.model }

    /// The model type's name (`Person`).
    public var name: String

    /// The stored properties, by ascending id.
    public var properties: [Property]

    /// Describes a model; `properties` are kept sorted by id.
    public init(name: String, properties: [Property]) {
        self.name = name
        self.properties = properties.sorted { $0.id < $1.id }
    }

    /// The name of a property of the model's paths: a stored property's name, or `"status"`
    /// for the instance status; `nil` for an id it does not describe.
    public func propertyName(_ property: PropertyKey) -> String? {
        if property == PropertyKey.instanceId { return "status" }
        return properties.first { $0.id == property }?.name
    }

    /// This description with the properties of `stored` that it lacks (by id): a property
    /// removed from the type still names the values older versions wrote.
    func keepingProperties(of stored: ModelDescription) -> ModelDescription {
        let known = Set(properties.map(\.id))
        return ModelDescription(name: name, properties: properties + stored.properties.filter { !known.contains($0.id) })
    }
}

extension ModelDescription.Property {

    /// A `@Property`, for generated `_$description`.
    public static func property(_ id: PropertyKey, _ name: String, type: String) -> Self {
        Self(id: id, name: name, kind: .property, type: type)
    }

    /// A `@Reference`, for generated `_$description`: the target from the property's type.
    public static func reference<Root, Target: ModelProtocol>(_ id: PropertyKey, _ name: String, _ keyPath: KeyPath<Root, Target?>) -> Self {
        Self(id: id, name: name, kind: .reference, target: Target.modelId)
    }

    /// A `@ReferenceList`, for generated `_$description`.
    public static func referenceList<Root, List: Sequence>(_ id: PropertyKey, _ name: String, _ keyPath: KeyPath<Root, List>) -> Self
    where List.Element: ModelProtocol {
        Self(id: id, name: name, kind: .referenceList, target: List.Element.modelId)
    }

    /// A `@ReferenceDictionary`, for generated `_$description`.
    public static func referenceDictionary<Root, Key, Target: ModelProtocol>(_ id: PropertyKey, _ name: String, _ keyPath: KeyPath<Root, [Key: Target]>) -> Self {
        Self(id: id, name: name, kind: .referenceDictionary, target: Target.modelId)
    }
}

extension ModelProtocol {

    /// The type's name and no properties: what a hand-written model without `@Model`
    /// records.
    public static var _$description: ModelDescription {
        ModelDescription(name: String(describing: Self.self), properties: [])
    }
}
