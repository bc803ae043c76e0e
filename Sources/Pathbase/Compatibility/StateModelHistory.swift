import Foundation

/// Reads the history StateModel writes with `getEncodedHistory(until:)`, so that
/// ``Database/importRecords(from:)``, ``Database/insert(records:)`` and `pathbase import`
/// take it like a ``RecordArchive`` document.
///
/// StateModel encodes its records with `JSONEncoder` as one JSON array; each record is itself
/// an array of the path `[model, instance, property]`, the time of the write in seconds since
/// 1970, and the value's own JSON encoding as base64 (how `JSONEncoder` writes `Data`):
///
/// ```json
/// [[[1, 7, 0], 1700000000.25, "MQ=="], [[1, 7, 1], 1700000000.5, "IkFsaWNlIg=="]]
/// ```
///
/// Statuses (property 0) keep StateModel's raw values, which are Pathbase's: 1 created, 2
/// deleted. Other values are stored with the type the model declares for the property when
/// this process knows the model (``ModelRegistry``: used with a database, or registered);
/// otherwise, or when the value no longer decodes as that type, as an ``EncodedValue`` that
/// decodes when read. Times become timestamps of replica 0 with the write's microsecond.
enum StateModelHistory {

    /// The type name of values imported without a known type.
    static let untypedValueName = "StateModel.JSON"

    /// Whether `data` looks like StateModel's history rather than a Pathbase document: a
    /// JSON array, where a document is a JSON object.
    static func matches(_ data: Data) -> Bool {
        data.first { !Self.whitespace.contains($0) } == UInt8(ascii: "[")
    }

    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    /// Decodes every record, checking all of them before returning any.
    static func decode(_ data: Data) throws -> [Record] {
        let records: [Entry]
        do {
            records = try JSONDecoder().decode([Entry].self, from: data)
        } catch {
            throw RecordArchiveError.malformed(reason: "not StateModel history: \(error)")
        }
        return try records.map { try $0.record() }
    }

    /// One StateModel record: `[path, seconds since 1970, value JSON as base64]`.
    private struct Entry: Decodable {
        let path: Path
        let seconds: Double
        let json: Data

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            path = try container.decode(Path.self)
            seconds = try container.decode(Double.self)
            json = try container.decode(Data.self)
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a record has more than three entries")
            }
        }

        func record() throws -> Record {
            let microseconds = (seconds * 1_000_000).rounded()
            guard microseconds.isFinite, abs(microseconds) < 9e18 else {
                throw RecordArchiveError.malformed(reason: "the time \(seconds) of the record at \(path) is out of range")
            }
            return Record(path: path, timestamp: Timestamp(time: Int64(microseconds)), value: try value())
        }

        private func value() throws -> any DatabaseValue {
            // Decoding failures here become the typed errors below, naming the path.
            if path.isStatus {
                guard let raw = try? JSONDecoder().decode(UInt8.self, from: json), let status = InstanceStatus(rawValue: raw), status != .notCreated else {
                    throw RecordArchiveError.invalidValue(type: "InstanceStatus", path: path)
                }
                return status
            }
            // The value must at least be JSON, or nothing could ever read it.
            guard (try? JSONValue(json: json)) != nil else {
                throw RecordArchiveError.invalidValue(type: "JSON", path: path)
            }
            // A value that doesn't decode as today's property type is kept untyped, not lost.
            if let type = ModelRegistry.shared.type(for: path.model)?._$propertyType(path.property),
                let typed = try? Self.decode(json, as: type)
            {
                return typed
            }
            return EncodedValue(typeName: StateModelHistory.untypedValueName, json: json)
        }

        private static func decode<Value: DatabaseValue>(_ json: Data, as type: Value.Type) throws -> any DatabaseValue {
            try JSONDecoder().decode(Value.self, from: json)
        }
    }
}
