@_spi(Reflection) import Swift

/// The top-level stored properties of a struct type, to turn key paths into coding keys.
///
/// A key path names a stored property by its offset in the struct
/// (`MemoryLayout.offset(of:)`); the runtime's field list gives the property at that offset
/// and its name, which is the coding key of synthesized `Codable`. Structs with custom
/// `CodingKeys` whose names differ from the properties' name fields by coding-key strings
/// (``FieldKey``) instead.
struct FieldKeys: @unchecked Sendable {
    // @unchecked: `Any.Type` values are immutable metadata.

    struct Field {
        let name: String
        let offset: Int
        let type: Any.Type
    }

    let fields: [Field]

    /// The fields of `type`; empty for a type that is not a struct.
    init(of type: Any.Type) {
        var fields: [Field] = []
        _ = _forEachField(of: type, options: []) { name, offset, fieldType, _ in
            fields.append(Field(name: String(cString: name), offset: offset, type: fieldType))
            return true
        }
        self.fields = fields
    }

    /// Whether `key` names a stored property.
    func contains(_ key: String) -> Bool {
        fields.contains { $0.name == key }
    }

    /// The coding key of the top-level stored property a key path reads. `collection` names
    /// the collection in the error, made only then: describing a type cost more than the
    /// rest of building a query's filter.
    func key<Root>(for keyPath: PartialKeyPath<Root>, collection: @autoclosure () -> String) throws(CollectionError) -> String {
        let valueType = type(of: keyPath).valueType
        guard let offset = MemoryLayout<Root>.offset(of: keyPath),
            let field = fields.first(where: { $0.offset == offset && $0.type == valueType })
        else {
            throw .unknownField(collection: collection(), key: String(describing: keyPath))
        }
        return field.name
    }

    /// The fields of `type`, computed once per type.
    static func of(_ type: Any.Type) -> FieldKeys {
        if let keys = known.withLock({ $0[ObjectIdentifier(type)] }) { return keys }
        let keys = FieldKeys(of: type)
        known.withLock { $0[ObjectIdentifier(type)] = keys }
        return keys
    }

    private static let known = Locked<[ObjectIdentifier: FieldKeys]>([:])
}
