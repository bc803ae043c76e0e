/// A collection stored in a database, as tools show it: its name, model key and the coding
/// keys its structs have stored, with their property keys.
///
/// ```swift
/// for summary in database.collectionSummaries() {
///     print(summary.name, summary.fields.keys.sorted())
/// }
/// ```
public struct CollectionSummary: Sendable, Equatable {

    /// The collection's name.
    public let name: String

    /// The model key its paths use.
    public let model: ModelKey

    /// The property key of every coding key any of its instances has stored.
    public let fields: [String: PropertyKey]

    /// The name of a property of the collection's paths, if it is a field or reserved.
    public func propertyName(_ property: PropertyKey) -> String? {
        switch property {
        case PropertyKey.instanceId: return "status"
        case CollectionKeys.originProperty: return "(id)"
        case CollectionKeys.fieldsProperty: return "(keys)"
        default: return fields.first { $0.value == property }?.key
        }
    }
}

extension Database {

    /// The collections stored in this database, by name, found from its catalog and the
    /// keys each instance stored (a read of every instance: for tools, not hot paths).
    public func collectionSummaries() -> [CollectionSummary] {
        collectionNames.map { model, name in
            var keys: Set<String> = []
            let instances = all(model: model) { instance, _ in instance }
            for instance in instances {
                let stored: [String] = get(Path(model: model, instance: instance, property: CollectionKeys.fieldsProperty)) ?? []
                keys.formUnion(stored)
            }
            let fields = Dictionary(uniqueKeysWithValues: keys.map { ($0, CollectionKeys.property(forKey: $0, inCollection: name)) })
            return CollectionSummary(name: name, model: model, fields: fields)
        }
        .sorted { $0.name < $1.name }
    }
}
