/// A ``Record`` as sent in a response: its path, its timestamp, and its value encoded as
/// the property's own type, so that `JSONEncoder` writes `"Alice"` and not an opaque blob.
///
/// The receiving side decodes the value with the type its model declares for the path
/// (``InstanceStatus`` for statuses). A record of a property the receiving model does not
/// have decodes without a value and is skipped when applied. A ``NoValue`` marker is sent
/// without a `value` entry.
struct WireRecord: Codable {

    let path: Path
    let timestamp: Timestamp
    /// `nil` when the receiving side has no type for the path.
    let value: (any DatabaseValue)?

    private enum Key: String, CodingKey {
        case path, timestamp, value
    }

    /// A record to send; `value` must already have the property's type.
    init(path: Path, timestamp: Timestamp, value: any DatabaseValue) {
        self.path = path
        self.timestamp = timestamp
        self.value = value
    }

    /// The record to send for a stored record, or `nil` when its value is not of the
    /// property's type (a value written before the property's type changed, which reads as
    /// the default and which the other side could not decode).
    init?(_ record: Record, type: (any DatabaseValue.Type)?) {
        if record.value is NoValue {
            self.init(path: record.path, timestamp: record.timestamp, value: NoValue())
            return
        }
        guard let type, let value = WireRecord.cast(record.value, to: type) else { return nil }
        self.init(path: record.path, timestamp: record.timestamp, value: value)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        path = try container.decode(Path.self, forKey: .path)
        timestamp = try container.decode(Timestamp.self, forKey: .timestamp)
        if !container.contains(.value) {
            value = NoValue()
        } else if let type = try MessageDecodingContext.required(by: decoder).valueType(at: path) {
            value = try WireRecord.decodeValue(of: type, from: container)
        } else {
            value = nil
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(path, forKey: .path)
        try container.encode(timestamp, forKey: .timestamp)
        if let value, !(value is NoValue) {
            try container.encode(value, forKey: .value)
        }
    }

    /// The record to store.
    var record: Record? {
        value.map { Record(path: path, timestamp: timestamp, value: $0) }
    }

    private static func decodeValue<Value: DatabaseValue>(of type: Value.Type, from container: KeyedDecodingContainer<Key>) throws -> any DatabaseValue {
        try container.decode(Value.self, forKey: .value)
    }

    private static func cast<Value: DatabaseValue>(_ value: any DatabaseValue, to type: Value.Type) -> (any DatabaseValue)? {
        (value as? Value).map { $0 as any DatabaseValue }
    }
}
