/// Encodes a struct into its top-level fields: one ``FieldValue`` per coding key, nested
/// values kept whole (they are stored as values).
///
/// ```swift
/// let fields = try FieldEncoder.fields(of: user, collection: "users") // ["id": …, "name": …]
/// ```
///
/// Optional fields encoded with `encodeIfPresent` (what synthesized `Codable` does) are
/// kept as `Optional<Wrapped>`, `nil` included, so saving a struct whose optional became
/// `nil` clears it.
enum FieldEncoder {

    static func fields<Element: Encodable>(of element: Element, collection: String) throws(CollectionError) -> [(key: String, value: FieldValue)] {
        let storage = FieldStorage(collection: collection)
        do {
            try element.encode(to: TopLevelEncoder(storage: storage))
        } catch let error as CollectionError {
            throw error
        } catch {
            throw .unsupportedEncoding(collection: collection, reason: String(describing: error))
        }
        if let problem = storage.problem { throw problem }
        guard storage.isKeyed else {
            throw .unsupportedEncoding(collection: collection, reason: "it does not encode as keyed fields")
        }
        return storage.fields
    }
}

/// What encoding collects: the fields in encoding order, the last value per key.
private final class FieldStorage {
    let collection: String
    /// Searched in order when a key is set again: structs have few fields, and hashing
    /// every key cost more than the search.
    var fields: [(key: String, value: FieldValue)] = []
    var isKeyed = false
    var problem: CollectionError?

    init(collection: String) {
        self.collection = collection
    }

    func set(_ value: any DatabaseValue, for key: String) {
        if let position = fields.firstIndex(where: { $0.key == key }) {
            fields[position].value = FieldValue(value: value)
        } else {
            fields.append((key, FieldValue(value: value)))
        }
    }

    func unsupported(_ reason: String) {
        if problem == nil { problem = .unsupportedEncoding(collection: collection, reason: reason) }
    }
}

private struct TopLevelEncoder: Encoder {
    let storage: FieldStorage
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        storage.isKeyed = true
        return KeyedEncodingContainer(FieldContainer<Key>(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        storage.unsupported("it encodes as an array, not as keyed fields")
        return RejectingUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        storage.unsupported("it encodes as a single value, not as keyed fields")
        return RejectingSingleValueContainer()
    }
}

private struct FieldContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: FieldStorage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        storage.set(NoValue(), for: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let codable = value as? any DatabaseValue else {
            storage.unsupported("the value of '\(key.stringValue)' is Encodable but not Decodable")
            return
        }
        storage.set(codable, for: key.stringValue)
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let type = T.self as? any DatabaseValue.Type else {
            storage.unsupported("the value of '\(key.stringValue)' is Encodable but not Decodable")
            return
        }
        storage.set(Self.optional(value, as: type), for: key.stringValue)
    }

    // Synthesized `Codable` calls the typed overloads: storing them directly spares the
    // generic one's dynamic cast to `DatabaseValue`.
    mutating func encode(_ value: Bool, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { storage.set(value, for: key.stringValue) }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { storage.set(value, for: key.stringValue) }

    /// `value` as `Optional<Wrapped>` with `Wrapped` its dynamic `DatabaseValue` type.
    private static func optional<T, Wrapped: DatabaseValue>(_ value: T?, as type: Wrapped.Type) -> any DatabaseValue {
        let typed: Wrapped? = value.flatMap { $0 as? Wrapped }
        return typed
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        storage.unsupported("'\(key.stringValue)' is encoded through a nested container; encode a nested Codable value instead")
        return KeyedEncodingContainer(FieldContainer<NestedKey>(storage: FieldStorage(collection: storage.collection)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        storage.unsupported("'\(key.stringValue)' is encoded through a nested container; encode a nested Codable value instead")
        return RejectingUnkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        storage.unsupported("it encodes a superclass")
        return TopLevelEncoder(storage: FieldStorage(collection: storage.collection))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder()
    }
}

/// Accepts and drops what a struct encodes the wrong way; the encoding is already refused.
private struct RejectingUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FieldContainer<NestedKey>(storage: FieldStorage(collection: "")))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { TopLevelEncoder(storage: FieldStorage(collection: "")) }
}

private struct RejectingSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
