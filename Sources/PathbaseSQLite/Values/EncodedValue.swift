import Foundation
import Pathbase

/// A stored `Codable` value whose Swift type this process has not used yet, as records
/// return it.
///
/// ``SQLiteDatabase/records(after:limit:)`` and ``SQLiteDatabase/records(at:)`` return each
/// value as the Swift type that wrote it. Natively stored values (numbers, strings, bytes,
/// dates, statuses) always come back as their type; an encoded `Codable` value does too
/// once this process has read or written that type through any ``SQLiteDatabase``.
/// Otherwise its record holds an `EncodedValue`:
///
/// ```swift
/// for record in database.records(at: path) {
///     if let encoded = record.value as? EncodedValue {
///         let address = try encoded.decode(as: Address.self)
///     }
/// }
/// ```
///
/// Storing an `EncodedValue` in an ``SQLiteDatabase`` (for example by applying the record)
/// stores the original value again, byte for byte, under its original type name.
public struct EncodedValue: Codable, Hashable, Sendable, CustomStringConvertible {

    /// The Swift type that wrote the value, as `String(reflecting:)` names it
    /// (for example `"MyApp.Address"`).
    public var typeName: String

    /// The value encoded as JSON.
    public var json: Data

    /// Wraps an encoded value.
    public init(typeName: String, json: Data) {
        self.typeName = typeName
        self.json = json
    }

    /// Decodes the value as `type`.
    public func decode<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(type, from: json)
    }

    public var description: String {
        "\(typeName)(\(String(decoding: json, as: UTF8.self)))"
    }
}
