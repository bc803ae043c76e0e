import Foundation

/// An encoder that turns a value into `Data`: what synchronization messages and commands are
/// written with.
///
/// `JSONEncoder` and `PropertyListEncoder` conform; any other encoder that writes a whole
/// value to `Data` can:
///
/// ```swift
/// let consumer = UpdateConsumer(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
/// let data = try command.encoded(using: PropertyListEncoder())
/// ```
public protocol DataEncoder {

    /// Encodes a value as `Data`.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

/// A decoder that reads a value from `Data`: the counterpart of ``DataEncoder``.
///
/// `JSONDecoder` and `PropertyListDecoder` conform:
///
/// ```swift
/// let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
/// ```
public protocol DataDecoder {

    /// Decodes a value of a type from `Data`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONEncoder: DataEncoder {}
extension JSONDecoder: DataDecoder {}
extension PropertyListEncoder: DataEncoder {}
extension PropertyListDecoder: DataDecoder {}
