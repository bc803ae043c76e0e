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
