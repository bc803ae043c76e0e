import Foundation

/// The export format of a database's records: versioned JSON that any database can import.
///
/// ```swift
/// let data = try database.exportRecords()                 // everything
/// let recent = try database.exportRecords(after: stamp)    // only newer records
/// try otherDatabase.importRecords(from: data)              // same state, same history
/// ```
///
/// The document is a JSON object `{"format": "pathbase-records", "version": 1,
/// "records": [...]}`; each record is `{"path": [model, instance, property], "timestamp":
/// [microseconds, counter, replica], "type": T, "value": V}`. `T` names the value's type
/// exactly, so that it reads back as the type that wrote it: `Bool`, `Int`, `Int8` …
/// `UInt64`, `Double`, `Float`, `String`, `Data` (base64), `Date` (seconds since 2001),
/// `InstanceStatus`, `[Int]` (reference lists), `NoValue`, `nil` (a stored `nil`), or
/// `codable:<Swift type name>` with the value's own JSON encoding as `V`, imported as an
/// ``EncodedValue`` that decodes when read.
///
/// Importing keeps the records' timestamps, so newest-wins makes imports idempotent:
/// importing the same data twice changes nothing, and importing into a database that
/// already has newer values keeps those. A malformed, truncated or newer-version document,
/// or one with a record whose path breaks the exchange contract (``Path/exchangeProblem``,
/// for example a negative model id), throws ``RecordArchiveError`` before anything is
/// written.
public enum RecordArchive {

    /// The format name in every document.
    public static let format = "pathbase-records"

    /// The version this library writes and reads.
    public static let version = 1

    /// Encodes records into an export document.
    ///
    /// ```swift
    /// let data = try RecordArchive.encode(database.records(after: nil))
    /// ```
    ///
    /// `progress`, if given, is called with the number of records archived so far, every
    /// few thousand records and at the end. Throws ``RecordArchiveError`` for a value that
    /// can't be archived or a path outside the exchange contract.
    public static func encode(_ records: [Record], progress: ((Int) -> Void)? = nil) throws -> Data {
        var archived: [ArchivedRecord] = []
        archived.reserveCapacity(records.count)
        for record in records {
            archived.append(try ArchivedRecord(record))
            if archived.count % progressInterval == 0 { progress?(archived.count) }
        }
        progress?(archived.count)
        let document = Document(format: format, version: version, records: archived)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document)
    }

    /// The records an export holds: all but a ``Replica``'s bookkeeping (the records under
    /// ``Replica/stateModel``), which belongs to the database it was made in.
    ///
    /// ```swift
    /// let data = try RecordArchive.encode(RecordArchive.exportable(database.records(after: nil)))
    /// ```
    public static func exportable(_ records: [Record]) -> [Record] {
        records.filter { $0.path.model != Replica.stateModel }
    }

    /// How many records pass between two progress reports.
    static let progressInterval = 5_000

    /// Decodes an export document into records, checking all of it first.
    ///
    /// It also reads the history StateModel writes with `getEncodedHistory(until:)` (a JSON
    /// array where a document is an object; see MIGRATING.md).
    ///
    /// ```swift
    /// let records = try RecordArchive.decode(data)
    /// try database.importRecords(records)
    /// ```
    ///
    /// Throws ``RecordArchiveError`` for a malformed or newer document, a value that does
    /// not match its type, or a path outside the exchange contract.
    public static func decode(_ data: Data) throws -> [Record] {
        if StateModelHistory.matches(data) {
            return try StateModelHistory.decode(data)
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw RecordArchiveError.malformed(reason: "\(error)")
        }
        guard document.format == format else {
            throw RecordArchiveError.malformed(reason: "the document's format is '\(document.format)', not '\(format)'")
        }
        guard document.version <= version else {
            throw RecordArchiveError.newerVersion(found: document.version, supported: version)
        }
        return try document.records.map { try $0.record() }
    }

    struct Document: Codable {
        let format: String
        let version: Int
        let records: [ArchivedRecord]
    }
}

/// Why an export document could not be read. Nothing was imported.
///
/// ```swift
/// do { try database.importRecords(from: data) } catch let error as RecordArchiveError {
///     print(error.localizedDescription)
/// }
/// ```
public enum RecordArchiveError: Error, CustomStringConvertible, Equatable, LocalizedError {
    /// The data is not a valid export document (not JSON, truncated, missing fields).
    case malformed(reason: String)
    /// The document was written by a newer version of the format.
    case newerVersion(found: Int, supported: Int)
    /// A record's value does not match its declared type.
    case invalidValue(type: String, path: Path)
    /// A value of this type cannot be written into a document.
    case unsupportedValue(type: String, path: Path)
    /// A record's path breaks the exchange contract (see ``Path/exchangeProblem``).
    case invalidPath(path: Path, reason: String)

    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .malformed(let reason): "Not a Pathbase export, or damaged: \(reason)"
        case .newerVersion(let found, let supported): "The export has format version \(found); this Pathbase reads up to \(supported)"
        case .invalidValue(let type, let path): "The export's value at \(path) is not a valid \(type)"
        case .unsupportedValue(let type, let path): "A value of type \(type) at \(path) cannot be exported"
        case .invalidPath(let path, let reason): "The record at \(path) has \(reason), which no Pathbase database writes; nothing was imported"
        }
    }
}

/// One record in an export document.
struct ArchivedRecord: Codable {
    let path: Path
    let timestamp: Timestamp
    let type: String
    let value: JSONValue

    init(_ record: Record) throws {
        if let problem = record.path.exchangeProblem {
            throw RecordArchiveError.invalidPath(path: record.path, reason: problem)
        }
        path = record.path
        timestamp = record.timestamp
        (type, value) = try Self.archive(record.value, at: record.path)
    }

    func record() throws -> Record {
        if let problem = path.exchangeProblem {
            throw RecordArchiveError.invalidPath(path: path, reason: problem)
        }
        return Record(path: path, timestamp: timestamp, value: try restore())
    }

    private static func archive(_ value: any DatabaseValue, at path: Path) throws -> (String, JSONValue) {
        // A stored `nil` of any optional type.
        if Mirror(reflecting: value).displayStyle == .optional, Mirror(reflecting: value).children.isEmpty {
            return ("nil", .null)
        }
        if let native = NativeValueType(of: value), let archived = Self.archive(native: native, value) {
            return (native.name, archived)
        }
        switch value {
        case is NoValue: return ("NoValue", .null)
        case let value as EncodedValue: return ("codable:\(value.typeName)", try JSONValue(json: value.json))
        default:
            let typeName = String(reflecting: Swift.type(of: value))
            let json: Data
            do {
                json = try JSONEncoder().encode(value)
            } catch {
                throw RecordArchiveError.unsupportedValue(type: typeName, path: path)
            }
            return ("codable:\(typeName)", try JSONValue(json: json))
        }
    }

    private func restore() throws -> any DatabaseValue {
        func invalid() -> RecordArchiveError { .invalidValue(type: type, path: path) }
        if let native = NativeValueType(name: type) {
            return try restore(native, invalid: invalid)
        }
        switch type {
        case "nil": return Optional<NoValue>.none
        case "NoValue": return NoValue()
        case let name where name.hasPrefix("codable:") && name.count > "codable:".count:
            return EncodedValue(typeName: String(name.dropFirst("codable:".count)), json: try value.json())
        default:
            throw RecordArchiveError.malformed(reason: "unknown value type '\(type)' at \(path)")
        }
    }

    /// A native value as the document holds it; `nil` only if `value` is not of `native`'s type.
    private static func archive(native: NativeValueType, _ value: any DatabaseValue) -> JSONValue? {
        func integer<I: FixedWidthInteger>(_ type: I.Type) -> JSONValue? {
            // Unsigned types that may pass Int64.max are written as text.
            (value as? I).map { I.bitWidth == 64 && !I.isSigned ? .string(String($0)) : .integer(Int64($0)) }
        }
        switch native {
        case .bool: return (value as? Bool).map { .bool($0) }
        case .int: return integer(Int.self)
        case .int8: return integer(Int8.self)
        case .int16: return integer(Int16.self)
        case .int32: return integer(Int32.self)
        case .int64: return integer(Int64.self)
        case .uint: return integer(UInt.self)
        case .uint8: return integer(UInt8.self)
        case .uint16: return integer(UInt16.self)
        case .uint32: return integer(UInt32.self)
        case .uint64: return integer(UInt64.self)
        case .double: return (value as? Double).map { .double($0) }
        case .float: return (value as? Float).map { .double(Double($0)) }
        case .string: return (value as? String).map { .string($0) }
        case .data: return (value as? Data).map { .string($0.base64EncodedString()) }
        case .date: return (value as? Date).map { .double($0.timeIntervalSinceReferenceDate) }
        case .instanceStatus: return (value as? InstanceStatus).map { .integer(Int64($0.rawValue)) }
        case .integerArray: return (value as? [Int]).map { .array($0.map { .integer(Int64($0)) }) }
        }
    }

    /// The native value the document's `value` holds as `native`'s type.
    private func restore(_ native: NativeValueType, invalid: () -> RecordArchiveError) throws -> any DatabaseValue {
        func integer<I: FixedWidthInteger & DatabaseValue>(_ type: I.Type) throws -> I {
            switch value {
            case .integer(let number): if let exact = I(exactly: number) { return exact }
            case .string(let text): if let exact = I(text) { return exact }
            default: break
            }
            throw invalid()
        }
        switch native {
        case .bool:
            guard case .bool(let flag) = value else { throw invalid() }
            return flag
        case .int: return try integer(Int.self)
        case .int8: return try integer(Int8.self)
        case .int16: return try integer(Int16.self)
        case .int32: return try integer(Int32.self)
        case .int64: return try integer(Int64.self)
        case .uint: return try integer(UInt.self)
        case .uint8: return try integer(UInt8.self)
        case .uint16: return try integer(UInt16.self)
        case .uint32: return try integer(UInt32.self)
        case .uint64: return try integer(UInt64.self)
        case .double:
            guard let number = value.number else { throw invalid() }
            return number
        case .float:
            guard let number = value.number else { throw invalid() }
            return Float(number)
        case .string:
            guard case .string(let text) = value else { throw invalid() }
            return text
        case .data:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw invalid() }
            return data
        case .date:
            guard let number = value.number else { throw invalid() }
            return Date(timeIntervalSinceReferenceDate: number)
        case .instanceStatus:
            guard case .integer(let raw) = value, let byte = UInt8(exactly: raw), let status = InstanceStatus(rawValue: byte) else { throw invalid() }
            return status
        case .integerArray:
            guard case .array(let elements) = value else { throw invalid() }
            return try elements.map { element -> Int in
                guard case .integer(let number) = element, let exact = Int(exactly: number) else { throw invalid() }
                return exact
            }
        }
    }
}

/// A JSON value, to carry encoded `Codable` values inside the document unchanged.
enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(json: Data) throws {
        if let text = JSONValue.plainString(json: json) {
            self = .string(text) // what the decoder reads, without it
            return
        }
        self = try JSONValue.decoder.decode(JSONValue.self, from: json)
    }

    /// One decoder for every value, instead of one made per value.
    private static let decoder = JSONDecoder()

    func json() throws -> Data {
        try JSONEncoder().encode(self)
    }

    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Tries each JSON kind in turn: a failed attempt only means "not this kind"; the
        // last one throws when the value is none of them. A failed attempt costs a thrown
        // error, so the most common kind goes first: a string is only ever a string, as a
        // number only ever decodes as a number (integers before doubles) and `true` and
        // `false` only as `Bool`, so the order changes no value read.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension HistoryDatabase {

    /// Exports every record (or those after `timestamp`) as a ``RecordArchive`` document.
    ///
    /// ```swift
    /// let backup = try database.exportRecords()
    /// ```
    ///
    /// A ``Replica``'s own bookkeeping (its id, outbox watermark and pull cursor, under
    /// ``Replica/stateModel``) is left out: it describes this database's place in a sync,
    /// not data, and a copy made from the export is a new replica of its own.
    public func exportRecords(after timestamp: Timestamp? = nil) throws -> Data {
        try RecordArchive.encode(RecordArchive.exportable(records(after: timestamp)))
    }
}

extension Database {

    /// Imports a ``RecordArchive`` document, record by record with their timestamps on a
    /// ``HistoryDatabase`` (newest wins), in one batch on a ``BatchDatabase``.
    ///
    /// ```swift
    /// try database.importRecords(from: backup)
    /// ```
    ///
    /// The whole document is checked before anything is written; a malformed one throws
    /// ``RecordArchiveError`` and changes nothing. A database without history keeps, for
    /// each path, the value of the newest record in the document.
    public func importRecords(from data: Data) throws {
        try importRecords(RecordArchive.decode(data))
    }

    /// Imports records already decoded (by ``RecordArchive/decode(_:)``), like
    /// ``importRecords(from:)``.
    ///
    /// ```swift
    /// let records = try RecordArchive.decode(data)
    /// try database.importRecords(records) { done in print("\(done) of \(records.count)") }
    /// ```
    ///
    /// Every path is checked first (``Path/exchangeProblem``): one outside the contract
    /// throws ``RecordArchiveError/invalidPath(path:reason:)`` and nothing is written.
    /// `progress`, if given, is called with the number of records stored so far, every few
    /// thousand records and at the end.
    public func importRecords(_ records: [Record], progress: ((Int) -> Void)? = nil) throws {
        for record in records {
            if let problem = record.path.exchangeProblem {
                throw RecordArchiveError.invalidPath(path: record.path, reason: problem)
            }
        }
        let ordered = records.sorted(by: Record.chronological)
        func store() {
            let history = historyDatabase
            for (index, record) in ordered.enumerated() {
                if let history {
                    history.apply(record)
                } else {
                    set(erased: record.value, for: record.path)
                }
                if (index + 1) % RecordArchive.progressInterval == 0 { progress?(index + 1) }
            }
            // Into a replica: the records of other replicas are pushed on its next sync.
            if let history { ReplicaState.noteImported(ordered, in: history) }
            progress?(ordered.count)
        }
        try inBatchIfSupported(store)
    }
}
