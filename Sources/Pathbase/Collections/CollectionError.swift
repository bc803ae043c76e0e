import Foundation

/// Why a collection refused an operation. Nothing stored is changed when one is thrown.
///
/// ```swift
/// do {
///     let user = try users.fetch(id: id)
/// } catch CollectionError.missingField(let collection, let id, let key) {
///     print("\(collection)/\(id) has no \(key)")
/// }
/// ```
public enum CollectionError: Error, Equatable, LocalizedError {

    /// A stored instance lacks a non-optional field that has no declared default.
    case missingField(collection: String, id: String, key: String)

    /// A stored value could not be decoded as the field's type.
    case undecodableField(collection: String, id: String, key: String, reason: String)

    /// Two ids hash to the same instance key; the struct with `id` was not stored.
    case idCollision(collection: String, id: String, storedId: String)

    /// Two coding keys of the collection map to the same property key.
    case fieldKeyCollision(collection: String, key: String, otherKey: String)

    /// Two collection names map to the same model key in this database.
    case collectionNameCollision(name: String, storedName: String)

    /// A key path or key that is not a top-level stored field of the struct.
    case unknownField(collection: String, key: String)

    /// The struct does not encode as keyed fields (a top-level single value or array), or
    /// encodes a value that is not `Codable`.
    case unsupportedEncoding(collection: String, reason: String)

    /// An instance in the catalog or an integer id generator is not what it should be.
    case idGeneratorExhausted(collection: String)

    /// A merge policy names no top-level stored field of the struct, or a field whose type
    /// the policy does not fit (a counter on a field that is not `Int`, a union on one that
    /// is neither a `Set` nor an array).
    case invalidMergePolicy(collection: String, key: String, reason: String)

    /// What went wrong, naming the collection, the instance and the key concerned.
    public var errorDescription: String? {
        switch self {
        case let .missingField(collection, id, key):
            "The stored \(collection) \(id) has no value for '\(key)', which is not optional and has no default."
        case let .undecodableField(collection, id, key, reason):
            "The stored \(collection) \(id) has a value for '\(key)' that does not decode: \(reason)"
        case let .idCollision(collection, id, storedId):
            "The id \(id) of \(collection) maps to the same instance as the stored id \(storedId); nothing was saved."
        case let .fieldKeyCollision(collection, key, otherKey):
            "The keys '\(key)' and '\(otherKey)' of \(collection) map to the same property; rename one."
        case let .collectionNameCollision(name, storedName):
            "The collection name '\(name)' maps to the same model as the stored collection '\(storedName)'; choose another name."
        case let .unknownField(collection, key):
            "'\(key)' is not a top-level stored field of \(collection)."
        case let .unsupportedEncoding(collection, reason):
            "\(collection) can't be stored as a collection: \(reason)"
        case let .idGeneratorExhausted(collection):
            "The generated ids of \(collection) on this replica are used up."
        case let .invalidMergePolicy(collection, key, reason):
            "The merge policy of '\(key)' in \(collection) can't be used: \(reason)."
        }
    }
}
