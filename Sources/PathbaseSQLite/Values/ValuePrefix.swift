import Foundation
import Pathbase

/// The start of a long `String` or `Data` value, as
/// ``SQLiteDatabase/records(model:instance:valuePrefix:)`` reads it: the value itself is one
/// read away, without a prefix.
///
/// ```swift
/// if let cut = record.value as? ValuePrefix, case .string(let start) = cut.start {
///     print(start, "…", cut.byteCount, "bytes in all")
/// }
/// ```
public struct ValuePrefix: Codable, Hashable, Sendable {

    /// The start of the value, of the value's type.
    public enum Start: Codable, Hashable, Sendable {
        /// The first characters (Unicode scalars) of a `String`.
        case string(String)
        /// The first bytes of a `Data`.
        case data(Data)
    }

    /// The start of the value.
    public var start: Start

    /// The size of the whole value in bytes (UTF-8, for a string).
    public var byteCount: Int

    /// Creates a prefix.
    public init(start: Start, byteCount: Int) {
        self.start = start
        self.byteCount = byteCount
    }

    /// The start of a value that is `byteCount` bytes long in all; `nil` when `start`
    /// is the whole value (it holds `byteCount` bytes) or is neither a `String` nor `Data`.
    init?(_ start: any DatabaseValue, byteCount: Int) {
        switch start {
        case let string as String where string.utf8.count < byteCount: self.init(start: .string(string), byteCount: byteCount)
        case let data as Data where data.count < byteCount: self.init(start: .data(data), byteCount: byteCount)
        default: return nil
        }
    }
}
