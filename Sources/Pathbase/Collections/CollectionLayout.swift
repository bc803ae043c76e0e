/// Where one collection's structs live in a database: its model key, the property key of
/// each coding key (checked for collisions), the declared defaults, and the reserved
/// properties that record each instance's id and stored keys.
final class CollectionLayout: @unchecked Sendable {
    // @unchecked: `defaults` is immutable after init; the caches are guarded by `lock`.

    let name: String
    let model: ModelKey
    /// Values read for keys without a stored value (fields added after data was stored).
    let defaults: [String: any DatabaseValue]

    /// The fields with a merge policy, by property key; empty for most collections, which
    /// then read and write every field as it is.
    let mergedFields: [PropertyKey: any MergedField]

    /// The coding keys of ``mergedFields``: conditions and sorts on them run on the structs.
    let mergedKeys: Set<String>

    /// The property keys of the struct's own field names, computed once: every decoded or
    /// encoded field looks its key up here first, without a lock or a hash (short names are
    /// compared in two words).
    private let fieldProperties: [(key: String, property: PropertyKey)]

    private let lock = Lock()
    /// Keys that are not field names (custom `CodingKeys`, keys of older structs).
    private var properties: [String: PropertyKey] = [:]
    /// The key each property key was derived from, to detect two keys sharing one.
    private var owners: [PropertyKey: String] = [:]

    init(name: String, fieldNames: [String], defaults: [String: any DatabaseValue], mergedFields: [String: any MergedField] = [:]) {
        self.name = name
        self.model = CollectionKeys.model(named: name)
        self.defaults = defaults
        self.fieldProperties = fieldNames.map { ($0, CollectionKeys.property(forKey: $0, inCollection: name)) }
        self.mergedFields = Dictionary(mergedFields.map { (CollectionKeys.property(forKey: $0.key, inCollection: name), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.mergedKeys = Set(mergedFields.keys)
    }

    /// How many fields the struct type has.
    var fieldCount: Int { fieldProperties.count }

    /// The property key of a coding key, looked up at `position` first: a struct's
    /// `init(from:)` reads its fields in the order they are declared, so a decoding that
    /// passes the position after the field it read last finds the next one at once.
    func property(forKey key: String, from position: inout Int) -> PropertyKey {
        if position < fieldProperties.count, fieldProperties[position].key == key {
            position += 1
            return fieldProperties[position - 1].property
        }
        guard let index = fieldProperties.firstIndex(where: { $0.key == key }) else { return derivedProperty(forKey: key) }
        position = index + 1
        return fieldProperties[index].property
    }

    /// The property key of a coding key (cached).
    func property(forKey key: String) -> PropertyKey {
        var position = 0
        return property(forKey: key, from: &position)
    }

    /// The property key of a key that is no field name, derived once and cached.
    private func derivedProperty(forKey key: String) -> PropertyKey {
        if let known = lock.withLock({ properties[key] }) { return known }
        let property = CollectionKeys.property(forKey: key, inCollection: name)
        lock.withLock { properties[key] = property }
        return property
    }

    /// Checks that no two of `keys` (and no key seen before) share a property key.
    func checkKeys(_ keys: some Sequence<String>) throws(CollectionError) {
        for key in keys {
            let property = self.property(forKey: key)
            let owner = lock.withLock { () -> String in
                if let owner = owners[property] { return owner }
                owners[property] = key
                return key
            }
            if owner != key { throw .fieldKeyCollision(collection: name, key: key, otherKey: owner) }
        }
    }

    /// Checks that every merged field of an encoded struct has the field's type (a custom
    /// `encode(to:)` may encode another).
    func checkMergedValues(of fields: [(key: String, value: FieldValue)]) throws(CollectionError) {
        for field in fields {
            guard let merged = mergedFields[property(forKey: field.key)], !merged.accepts(field.value.value) else { continue }
            throw .invalidMergePolicy(collection: name, key: field.key, reason: "the struct encodes it as \(type(of: field.value.value)), not as the type the policy was checked for")
        }
    }

    func path(_ instance: InstanceKey, _ property: PropertyKey) -> Path {
        Path(model: model, instance: instance, property: property)
    }

    /// The coding keys an instance has stored, sorted.
    func storedKeys(in database: any Database, instance: InstanceKey) -> [String] {
        database.get(path(instance, CollectionKeys.fieldsProperty)) ?? []
    }

    /// The id a hashed instance key was saved for.
    func storedOrigin(in database: any Database, instance: InstanceKey) -> String? {
        database.get(path(instance, CollectionKeys.originProperty))
    }

    /// The instances whose status is `.created`, in ascending order.
    func activeInstances(in database: any Database) -> [InstanceKey] {
        database.all(model: model) { instance, status in status == .created ? instance : nil }.sorted()
    }

    /// Checks the database's catalog: the model key belongs to this collection's name (or to
    /// none yet, when `registering` writes the name).
    func checkCatalog(in database: any Database, registering: Bool) throws(CollectionError) {
        let namePath = Path(model: CollectionKeys.catalogModel, instance: model, property: CollectionKeys.catalogNameProperty)
        if let stored: String = database.get(namePath) {
            guard stored == name else { throw .collectionNameCollision(name: name, storedName: stored) }
            return
        }
        guard registering else { return }
        database.set(name, for: namePath)
        database.set(InstanceStatus.created, for: .status(model: CollectionKeys.catalogModel, instance: model))
    }
}

extension Database {

    /// The names of the collections stored in this database, by model key.
    ///
    /// ```swift
    /// for (model, name) in database.collectionNames { print(model, name) }
    /// ```
    public var collectionNames: [ModelKey: String] {
        let catalog = CollectionKeys.catalogModel
        let models = all(model: catalog) { model, status in status == .created ? model : nil }
        var names: [ModelKey: String] = [:]
        for model in models {
            if let name: String = get(Path(model: catalog, instance: model, property: CollectionKeys.catalogNameProperty)) {
                names[model] = name
            }
        }
        return names
    }
}
