import Pathbase

/// How a value is stored: the `type` column next to every stored value.
///
/// Integers, floating point numbers, strings, booleans, bytes, dates and statuses are
/// stored natively (INTEGER, REAL, TEXT, BLOB), so SQL can filter and sort them; the tag
/// tells which Swift type wrote them, so `Bool` and `Int`, `Int` and `Int64`, `Data` and an
/// encoded value, or a stored `nil` and no value, read back exactly. Any other `Codable`
/// value is stored as JSON with the tag ``codableBase`` + the id of its Swift type in the
/// `value_types` table.
///
/// Tags are part of the file format (``Schema/formatVersion``): never renumber them. A new
/// codec gets a new range of tags and a new format version.
enum ValueTag: Int64 {
    /// `Optional.none`; the value column is NULL.
    case null = 0
    /// `Bool` as INTEGER 0 or 1.
    case bool = 1
    case int = 2
    case int8 = 3
    case int16 = 4
    case int32 = 5
    case int64 = 6
    case uint = 7
    case uint8 = 8
    case uint16 = 9
    case uint32 = 10
    /// `UInt64` as INTEGER, by bit pattern: values above `Int64.max` sort as negative in SQL.
    case uint64 = 11
    /// `Double` as REAL (NaN reads back from SQLite's NULL).
    case double = 12
    /// `Float` as REAL.
    case float = 13
    /// `String` as UTF-8 TEXT.
    case string = 14
    /// `Data` as BLOB.
    case data = 15
    /// ``InstanceStatus`` as its INTEGER raw value.
    case status = 16
    /// `Date` as REAL seconds since 2001-01-01, exactly as `Date` holds it.
    case date = 17
    /// `[Int]` (for example a reference list) as a BLOB of 64-bit little-endian integers.
    case integerArray = 18

    /// JSON-encoded `Codable` values use tags from here on: `codableBase + typeId`.
    static let codableBase: Int64 = 1024
}

extension ValueTag {
    /// The tag of a native type.
    @inline(__always)
    init(_ native: NativeValueType) {
        switch native {
        case .bool: self = .bool
        case .int: self = .int
        case .int8: self = .int8
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .uint: self = .uint
        case .uint8: self = .uint8
        case .uint16: self = .uint16
        case .uint32: self = .uint32
        case .uint64: self = .uint64
        case .double: self = .double
        case .float: self = .float
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .instanceStatus: self = .status
        case .integerArray: self = .integerArray
        }
    }

    /// The native type stored under this tag; `nil` for ``null``.
    var native: NativeValueType? {
        switch self {
        case .null: nil
        case .bool: .bool
        case .int: .int
        case .int8: .int8
        case .int16: .int16
        case .int32: .int32
        case .int64: .int64
        case .uint: .uint
        case .uint8: .uint8
        case .uint16: .uint16
        case .uint32: .uint32
        case .uint64: .uint64
        case .double: .double
        case .float: .float
        case .string: .string
        case .data: .data
        case .date: .date
        case .status: .instanceStatus
        case .integerArray: .integerArray
        }
    }
}
