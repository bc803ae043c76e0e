import Foundation

/// A `Codable` value in its encoded form, with the name of the Swift type that wrote it.
///
/// Values travel this way where their Swift type is not at hand: records read from an
/// `SQLiteDatabase` for a type this process has not used yet, and records imported from
/// an export. Every Pathbase database decodes an `EncodedValue` when it is read as a
/// concrete type, so a model reads it like any other stored value:
///
/// ```swift
/// database.set(EncodedValue(typeName: "MyApp.Address", json: json), for: path)
/// let address: Address? = database.get(path) // decoded from the JSON
/// ```
///
/// An `SQLiteDatabase` stores an `EncodedValue` as the original value, byte for byte,
/// under its original type name.
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
