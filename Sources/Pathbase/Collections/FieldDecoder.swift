/// Decodes a struct from its stored fields, one path per top-level coding key, reading each
/// value with the type the struct's `init(from:)` asks for.
///
/// Tolerant of older data: a key without a stored value decodes as `nil` for an optional,
/// as the collection's declared default, or throws ``CollectionError/missingField(collection:id:key:)``
/// naming the instance and the key. Values of keys the struct no longer has stay stored.
///
/// One decoder decodes the structs of one fetch, one after another (``begin(_:values:)``),
/// with one keyed container, rather than one of each per struct (see
/// ``CodableCollection/makeDecoder(expecting:)``); the fetch closes it when done.
///
/// A class: every container holds it, and copying a struct of this size (an existential
/// database among it) cost more per field than the read.
final class FieldDecoder: Decoder {

    let layout: CollectionLayout
    let database: any Database
    // Used by one decoding on one thread: no dynamic exclusivity checks per field.
    /// The instance being decoded.
    @exclusivity(unchecked) private(set) var instance: InstanceKey = 0
    /// Every value read, by property: the snapshot the collection keeps for merging saves.
    @exclusivity(unchecked) private(set) var snapshot: FieldSnapshot
    /// The instance's values when the database hands them out together
    /// (``QueryPushdownDatabase/keptValues(of:instance:)``); else each is read with `get`.
    @exclusivity(unchecked) private(set) var values: (any KeptInstanceValues)?
    /// Where the snapshots of this decoder's structs are recorded.
    private let snapshots: FieldSnapshotStorage
    /// Where the next field is expected among the layout's (see
    /// ``CollectionLayout/property(forKey:from:)``).
    @exclusivity(unchecked) private var fieldPosition = 0
    /// The keyed container handed out last (a ``KeptContainer``), and its key type: the
    /// next struct's `init(from:)` asks for the same.
    @exclusivity(unchecked) private var keptContainer: AnyObject?
    @exclusivity(unchecked) private var keptContainerKey: ObjectIdentifier?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `snapshots`: where the fields read are recorded.
    init(layout: CollectionLayout, database: any Database, snapshots: FieldSnapshotStorage) {
        self.layout = layout
        self.database = database
        self.snapshots = snapshots
        self.snapshot = FieldSnapshot(in: snapshots)
    }

    /// Starts decoding the struct stored under `instance`, from `values` when the database
    /// keeps them (else each value is read with `get`), with an empty snapshot.
    func begin(_ instance: InstanceKey, values: (any KeptInstanceValues)?) {
        self.instance = instance
        self.values = values
        snapshot = FieldSnapshot(in: snapshots)
        fieldPosition = 0
    }

    /// Lets go of the values of the struct decoded: the database hands the same reader
    /// to the next one only when nothing else holds it.
    func end() {
        values = nil
    }

    /// Drops the kept container, which holds this decoder: call when the fetch is done.
    func close() {
        keptContainer = nil
        keptContainerKey = nil
        values = nil
    }

    // The container of the struct before, when it has the same key type: making one per
    // struct looked up two generic type metadata (the container's and its box's) and
    // allocated the box, a fifth of decoding a struct of four fields. The key type is
    // compared first, so the unchecked downcast is of the type it was made as.
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if keptContainerKey == ObjectIdentifier(Key.self), let kept = keptContainer {
            return unsafeDowncast(kept, to: KeptContainer<Key>.self).container
        }
        let made = KeyedDecodingContainer(FieldDecodingContainer<Key>(decoder: self))
        keptContainer = KeptContainer(made)
        keptContainerKey = ObjectIdentifier(Key.self)
        return made
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw CollectionError.unsupportedEncoding(collection: layout.name, reason: "it decodes from an array, not from keyed fields")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw CollectionError.unsupportedEncoding(collection: layout.name, reason: "it decodes from a single value, not from keyed fields")
    }

    /// The instance as errors name it.
    var instanceDescription: String {
        layout.storedOrigin(in: database, instance: instance) ?? String(instance)
    }

    /// The stored value of `key` as `Value`, or `nil` when none of that type is stored.
    func read<Value: DatabaseValue>(_ type: Value.Type, key: String) -> Value? {
        let property = layout.property(forKey: key, from: &fieldPosition)
        let value: Value? =
            if !layout.mergedFields.isEmpty, let merged = layout.mergedFields[property] {
                merged.value(of: property, at: layout.path(instance, property), values: values, in: database) as? Value
            } else if let values {
                values.value(of: property)
            } else {
                database.get(layout.path(instance, property))
            }
        if let value { snapshot.record(value, for: property) }
        return value
    }

    /// What is stored for an optional field.
    enum OptionalLookup {
        /// A value or a stored `nil` (an `Optional<Wrapped>` in `Any`).
        case stored(Any)
        /// Nothing of the field's type.
        case missing
    }

    /// The stored value of an optional field. Reads `Optional<Wrapped>` (how optionals are
    /// saved), then `Wrapped` (a field that was not optional when it was saved).
    func readOptional<Wrapped: DatabaseValue>(_ type: Wrapped.Type, key: String) -> OptionalLookup {
        if let stored = read(Wrapped?.self, key: key) { return .stored(stored as Any) }
        if let stored = read(Wrapped.self, key: key) { return .stored(Optional(stored) as Any) }
        return .missing
    }
}

/// A keyed container kept by a ``FieldDecoder`` for the structs after the first.
private final class KeptContainer<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>

    init(_ container: KeyedDecodingContainer<Key>) {
        self.container = container
    }
}

private struct FieldDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FieldDecoder
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        decoder.layout.storedKeys(in: decoder.database, instance: decoder.instance).compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        decoder.layout.storedKeys(in: decoder.database, instance: decoder.instance).contains(key.stringValue)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        !contains(key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let storable = try storableType(of: type, key: key)
        if let value = decoder.read(storable, key: key.stringValue) as? T { return value }
        return try missing(type, storedAs: storable, key)
    }

    /// A field without a stored value of its type: the declared default, or why not.
    private func missing<T>(_ type: T.Type, storedAs storable: any DatabaseValue.Type, _ key: Key) throws -> T {
        if let value = decoder.layout.defaults[key.stringValue] as? T { return value }
        // A stored nil is no value; a stored value of another type is not a missing one.
        if contains(key), case .missing = decoder.readOptional(storable, key: key.stringValue) {
            throw mismatch(type, key)
        }
        throw CollectionError.missingField(collection: decoder.layout.name, id: decoder.instanceDescription, key: key.stringValue)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let storable = try storableType(of: type, key: key)
        switch decoder.readOptional(storable, key: key.stringValue) {
        case .stored(let value): return value as? T
        case .missing:
            // The key was stored, so a value of another type is there: never a silent nil.
            if contains(key) { throw mismatch(type, key) }
            return decoder.layout.defaults[key.stringValue] as? T
        }
    }

    /// The error for a key whose stored value is not of the type the struct asks for.
    private func mismatch<T>(_ type: T.Type, _ key: Key) -> CollectionError {
        .undecodableField(collection: decoder.layout.name, id: decoder.instanceDescription, key: key.stringValue, reason: "the stored value is not a \(T.self)")
    }

    private func storableType<T>(of type: T.Type, key: Key) throws -> any DatabaseValue.Type {
        guard let storable = T.self as? any DatabaseValue.Type else {
            throw CollectionError.unsupportedEncoding(collection: decoder.layout.name, reason: "the type of '\(key.stringValue)' is Decodable but not Encodable")
        }
        return storable
    }

    // Synthesized `Codable` calls the typed overloads; route them through the generic ones.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeValueIfPresent(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeValueIfPresent(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeValueIfPresent(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeValueIfPresent(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeValueIfPresent(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeValueIfPresent(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeValueIfPresent(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeValueIfPresent(type, key) }

    /// A field of a type known here to be a `DatabaseValue`: read without the dynamic casts
    /// of the generic `decode`, which cost more than the read. Inlined into each typed
    /// overload, so that the read is specialized for its type.
    @inline(__always)
    private func decodeValue<T: DatabaseValue>(_ type: T.Type, _ key: Key) throws -> T {
        if let value = decoder.read(T.self, key: key.stringValue) { return value }
        return try missing(type, storedAs: T.self, key)
    }

    private func decodeValueIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decodeIfPresent(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw CollectionError.unsupportedEncoding(collection: decoder.layout.name, reason: "'\(key.stringValue)' is decoded through a nested container; decode a nested Codable value instead")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CollectionError.unsupportedEncoding(collection: decoder.layout.name, reason: "'\(key.stringValue)' is decoded through a nested container; decode a nested Codable value instead")
    }

    func superDecoder() throws -> any Decoder {
        throw CollectionError.unsupportedEncoding(collection: decoder.layout.name, reason: "it decodes a superclass")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder()
    }
}
