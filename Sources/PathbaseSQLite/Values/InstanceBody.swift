import CPathbaseBodies
import Foundation
import GRDBSQLite
import Pathbase

/// The packed current records of one instance, as `instance_values` stores them (storage
/// format 6, timestamps against the body's base since format 8; `Sources/CPathbaseBodies/bodies.c`
/// defines the bytes and reads them).
struct InstanceBody {

    let bytes: [UInt8]

    /// One entry: a property's current record, at `range` of the body's bytes.
    struct Entry {
        let property: PropertyKey
        let timestamp: Pathbase.Timestamp
        let range: Range<Int>
    }

    /// The entries in property order; throws when the bytes are not a body.
    func entries() throws(SQLiteDatabaseError) -> [Entry] {
        var entries: [Entry] = []
        let wellFormed = bytes.withUnsafeBytes { body in
            Self.forEachEntry(in: body) { entry, range in
                entries.append(Entry(property: PropertyKey(entry.property), timestamp: entry.timestamp, range: range))
            }
        }
        guard wellFormed else { throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed instance body") }
        return entries
    }

    /// Calls `visit` with each entry of a body, in order, and where it is in the bytes;
    /// `false` when the bytes stop being a body (the entries before were visited). An
    /// entry's bytes point into `body`.
    @inline(__always)
    static func forEachEntry(in body: UnsafeRawBufferPointer, _ visit: (pathbase_entry, Range<Int>) -> Void) -> Bool {
        guard let base = body.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        // The entries start after the base (a body too short for one reads as malformed).
        var offset = body.isEmpty ? 0 : PATHBASE_BASE_SIZE
        var entry = pathbase_entry()
        while true {
            let start = Int(offset)
            switch pathbase_body_next(base, Int32(body.count), &offset, &entry) {
            case 1: visit(entry, start ..< Int(offset))
            case 0: return true
            default: return false
            }
        }
    }

    /// The record an entry holds, for `path` (its property's).
    func record(_ entry: Entry, path: Path) -> PendingWrites.Row {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = Int32(entry.range.lowerBound)
            var decoded = pathbase_entry()
            guard let base = buffer.baseAddress, pathbase_body_next(base, Int32(buffer.count), &offset, &decoded) == 1 else {
                return PendingWrites.Row(path: path, timestamp: entry.timestamp, tag: ValueTag.null.rawValue, value: .null)
            }
            return PendingWrites.Row(path: path, timestamp: entry.timestamp, tag: decoded.tag, value: decoded.storedValue)
        }
    }

    /// Calls `body` with the entry of a record, its value's bytes valid inside.
    @inline(__always)
    static func withEntry<Result>(_ property: PropertyKey, tag: Int64, timestamp: Pathbase.Timestamp, value: StoredValue, _ body: (inout pathbase_entry) -> Result) -> Result {
        var entry = pathbase_entry()
        entry.property = Int64(property)
        entry.tag = tag
        entry.time = timestamp.time
        entry.counter = timestamp.counter
        entry.replica = timestamp.replica
        // Text and blobs hand a copy of the entry to `withPayload`: a local function mutating
        // the captured entry made every access to it a dynamic exclusivity check.
        switch value {
        case .null:
            entry.kind = PATHBASE_KIND_NULL
            return body(&entry)
        case .integer(let integer):
            entry.kind = PATHBASE_KIND_INTEGER
            entry.integer = integer
            return body(&entry)
        case .real(let real):
            // SQLite holds NaN as NULL; so does a body, so that both read alike.
            entry.kind = real.isNaN ? PATHBASE_KIND_NULL : PATHBASE_KIND_REAL
            entry.real = real
            return body(&entry)
        case .text(var text):
            entry.kind = PATHBASE_KIND_TEXT
            return text.withUTF8 { withPayload(entry, UnsafeRawBufferPointer($0), body) }
        case .blob(let blob):
            entry.kind = PATHBASE_KIND_BLOB
            return blob.withUnsafeBytes { withPayload(entry, $0, body) }
        }
    }

    /// Calls `body` with a copy of `entry` pointing at `payload`.
    @inline(__always)
    private static func withPayload<Result>(_ entry: pathbase_entry, _ payload: UnsafeRawBufferPointer, _ body: (inout pathbase_entry) -> Result) -> Result {
        var entry = entry
        entry.bytes = payload.baseAddress?.assumingMemoryBound(to: UInt8.self)
        entry.length = Int32(payload.count)
        return body(&entry)
    }
}

extension pathbase_entry {
    var timestamp: Pathbase.Timestamp {
        Pathbase.Timestamp(time: time, counter: counter, replica: replica)
    }

    /// The value as SQLite would hold it.
    var storedValue: StoredValue {
        switch kind {
        case PATHBASE_KIND_INTEGER: return .integer(integer)
        case PATHBASE_KIND_REAL: return .real(real)
        case PATHBASE_KIND_TEXT: return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self))
        case PATHBASE_KIND_BLOB: return .blob(bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data())
        default: return .null
        }
    }
}

/// One entry of an instance body, read as SQLite reads a row of the `current_values` view:
/// column 0 its type tag, 1 its value (with SQLite's conversions between storage classes),
/// 2–4 its timestamp. Its bytes are the body's (a statement's row, or a body a listing keeps):
/// valid until that moves on.
struct BodyEntryColumns: ValueColumns {

    let entry: pathbase_entry

    var timestamp: Pathbase.Timestamp { entry.timestamp }

    private var valueBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: entry.bytes, count: Int(entry.length))
    }

    func int64(at column: Int32) -> Int64 {
        switch column {
        case 0: return entry.tag
        case 2: return entry.time
        case 3: return Int64(entry.counter)
        case 4: return Int64(entry.replica)
        default: break
        }
        switch entry.kind {
        case PATHBASE_KIND_INTEGER: return entry.integer
        case PATHBASE_KIND_REAL: return entry.real.isFinite ? Int64(exactly: entry.real.rounded(.towardZero)) ?? (entry.real < 0 ? .min : .max) : 0
        case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: return Int64(numericPrefix) ?? Double(numericPrefix).flatMap { Int64(exactly: $0.rounded(.towardZero)) } ?? 0
        default: return 0
        }
    }

    func double(at column: Int32) -> Double {
        guard column == 1 else { return Double(int64(at: column)) }
        switch entry.kind {
        case PATHBASE_KIND_INTEGER: return Double(entry.integer)
        case PATHBASE_KIND_REAL: return entry.real
        case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: return Double(numericPrefix) ?? 0
        default: return 0
        }
    }

    func isNull(at column: Int32) -> Bool {
        column == 1 && entry.kind == PATHBASE_KIND_NULL
    }

    func string(at column: Int32) -> String {
        guard column == 1 else { return String(int64(at: column)) }
        switch entry.kind {
        case PATHBASE_KIND_INTEGER: return String(entry.integer)
        case PATHBASE_KIND_REAL: return String(entry.real)
        case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: return String(decoding: valueBytes, as: UTF8.self)
        default: return ""
        }
    }

    func data(at column: Int32) -> Data {
        switch entry.kind {
        case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: return Data(valueBytes)
        case PATHBASE_KIND_NULL: return Data()
        default: return Data(string(at: column).utf8)
        }
    }

    func withBytes<Result>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch entry.kind {
        case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: return try body(valueBytes)
        default: return try data(at: column).withUnsafeBytes(body)
        }
    }

    /// The leading number of a text, as SQLite converts a text to a number.
    private var numericPrefix: String {
        let text = String(decoding: valueBytes, as: UTF8.self).drop { $0 == " " }
        let number = text.prefix { $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." || $0 == "e" || $0 == "E" }
        return String(number)
    }
}

extension Statement {
    /// The entry of `property` in the body in column `column` of the current row; `nil`
    /// when the body has none. Throws when the body is malformed.
    func bodyEntry(at column: Int32, property: PropertyKey) throws(SQLiteDatabaseError) -> BodyEntryColumns? {
        guard let body = sqlite3_column_blob(handle, column)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var entry = pathbase_entry()
        switch pathbase_body_find(body, sqlite3_column_bytes(handle, column), Int64(property), &entry) {
        case 1: return BodyEntryColumns(entry: entry)
        case 0: return nil
        default: throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed instance body")
        }
    }
}
