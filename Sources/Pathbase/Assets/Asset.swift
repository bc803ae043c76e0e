import Foundation

/// A large value stored outside the database, in a content-addressed file: the record keeps
/// only the content's hash and size.
///
/// ```swift
/// @Model(id: 30)
/// final class Song {
///     @Property(id: 1)
///     var audio: Asset?
/// }
///
/// song.audio = try await database.storeAsset(contentsOf: recording) // copied, hashed
/// let bytes = try await song.audio?.data()                          // read when asked
/// ```
///
/// The file is named after the SHA-256 hash of its content, in the database's asset folder
/// (see ``AssetStore``), so equal contents are stored once. Reading is lazy: ``data()``
/// loads the content, ``fileURL()`` gives the file and ``chunks(ofSize:)`` streams it with
/// bounded memory. Reads check the hash: a missing or damaged file throws ``AssetError``.
public struct Asset: Codable, Hashable, Sendable, CustomStringConvertible {

    /// The SHA-256 hash of the content, as 64 lowercase hexadecimal digits: the file's name.
    public let hash: String

    /// The content's size in bytes.
    public let size: Int64

    /// An asset with a known hash and size; throws ``AssetError/invalidHash(_:)`` unless
    /// `hash` is 64 lowercase hexadecimal digits.
    ///
    /// ```swift
    /// let known = try Asset(hash: record.hash, size: record.size)
    /// ```
    ///
    /// Assets usually come from ``Database/storeAsset(_:)``; use this to refer to content
    /// stored before, for example by another replica.
    public init(hash: String, size: Int64) throws(AssetError) {
        guard Self.isValidHash(hash) else { throw .invalidHash(hash) }
        guard size >= 0 else { throw .invalidSize(size) }
        self.hash = hash
        self.size = size
    }

    /// The name of the hash in the encoded form, distinctive so that the garbage collector
    /// finds assets nested in other `Codable` values.
    enum CodingKeys: String, CodingKey {
        case hash = "assetSHA256"
        case size = "assetSize"
    }

    /// Decodes an asset, refusing a hash that could not be a file name of the asset folder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hash = try container.decode(String.self, forKey: .hash)
        let size = try container.decode(Int64.self, forKey: .size)
        do {
            try self.init(hash: hash, size: size)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .hash, in: container, debugDescription: error.localizedDescription)
        }
    }

    public var description: String { "Asset(\(hash.prefix(12))…, \(size) bytes)" }

    /// Whether `hash` is a SHA-256 hash in lowercase hexadecimal: nothing else becomes a
    /// file name, so a stored value can never name a path outside the asset folder.
    static func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { (48 ... 57).contains($0) || (97 ... 102).contains($0) }
    }
}
