import Foundation

/// A record as it travels between replicas and a sync server: its path, its timestamp, and
/// its value in the export format's model-free encoding.
///
/// ```swift
/// let record = try SyncRecord(database.records().last!)
/// let restored = try record.record() // the same path, timestamp and value
/// ```
///
/// A server stores and forwards records without knowing any model type. The value keeps
/// the type that wrote it: `type` names it as ``RecordArchive`` does (`"String"`, `"Int"`,
/// `"InstanceStatus"`, `"codable:MyApp.Address"` …) and `valueJSON` holds it as canonical
/// JSON (sorted keys), so that the same value is always the same bytes. A record is
/// identified by its ``Key`` (path and timestamp): timestamps carry the writing replica's id,
/// so no two writes share one.
public struct SyncRecord: Codable, Hashable, Sendable, CustomStringConvertible {

    /// What identifies a record: where and when it was written.
    ///
    /// ```swift
    /// let key = SyncRecord.Key(path: path, timestamp: timestamp)
    /// print(replica.state(of: key))
    /// ```
    public struct Key: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {

        /// Where the value was written.
        public var path: Path

        /// When it was written.
        public var timestamp: Timestamp

        /// Creates a key.
        public init(path: Path, timestamp: Timestamp) {
            self.path = path
            self.timestamp = timestamp
        }

        /// Keys order like records: by timestamp, then path.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.path < rhs.path
        }

        public var description: String { "\(path) @ \(timestamp)" }
    }

    /// Where the value was written.
    public let path: Path

    /// When it was written.
    public let timestamp: Timestamp

    /// The value's type, named as in ``RecordArchive``.
    public let valueType: String

    /// The value as canonical JSON.
    public let valueJSON: Data

    /// The record's identity.
    public var key: Key { Key(path: path, timestamp: timestamp) }

    /// Creates a record from its stored parts, as a server's store reads them back.
    public init(path: Path, timestamp: Timestamp, valueType: String, valueJSON: Data) {
        self.path = path
        self.timestamp = timestamp
        self.valueType = valueType
        self.valueJSON = valueJSON
    }

    /// Encodes a database record; throws ``RecordArchiveError/unsupportedValue(type:path:)``
    /// for a value that has no JSON form (such as `Double.nan`).
    public init(_ record: Record) throws {
        let archived = try ArchivedRecord(record)
        self.init(path: record.path, timestamp: record.timestamp, valueType: archived.type, valueJSON: try SyncRecord.canonical(archived.value))
    }

    /// The database record: the value decoded as the type that wrote it, or an
    /// ``EncodedValue`` that decodes when read for types known only to the app.
    ///
    /// Throws ``RecordArchiveError`` when the value does not match its type.
    public func record() throws -> Record {
        let value: JSONValue
        do {
            value = try JSONValue(json: valueJSON)
        } catch {
            throw RecordArchiveError.invalidValue(type: valueType, path: path)
        }
        return try ArchivedRecord(path: path, timestamp: timestamp, type: valueType, value: value).record()
    }

    public var description: String {
        "\(path) @ \(timestamp): \(valueType) \(String(decoding: valueJSON, as: UTF8.self))"
    }

    private enum CodingKeys: String, CodingKey {
        case path, timestamp, type, value
    }

    // Encoded like an export record: the value is embedded as JSON, not as bytes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(Path.self, forKey: .path)
        timestamp = try container.decode(Timestamp.self, forKey: .timestamp)
        valueType = try container.decode(String.self, forKey: .type)
        valueJSON = try SyncRecord.canonical(try container.decode(JSONValue.self, forKey: .value))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(valueType, forKey: .type)
        try container.encode(try JSONValue(json: valueJSON), forKey: .value)
    }

    /// One JSON text per value: keys sorted, so that equal values compare equal as bytes.
    private static func canonical(_ value: JSONValue) throws -> Data {
        if case .string(let text) = value, let json = JSONValue.plainJSON(string: text) {
            return json // what the encoder writes, without it
        }
        return try canonicalEncoder.encode(value)
    }

    /// The encoder of ``canonical(_:)``, made once instead of once per record (a pull of
    /// 10^6 records made 10^6). Its options are never changed after it is made.
    private static let canonicalEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}

extension ArchivedRecord {

    /// An archived record from its parts.
    init(path: Path, timestamp: Timestamp, type: String, value: JSONValue) {
        self.path = path
        self.timestamp = timestamp
        self.type = type
        self.value = value
    }
}
