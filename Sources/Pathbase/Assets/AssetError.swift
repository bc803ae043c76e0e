import Foundation

/// Why an asset could not be stored or read.
///
/// ```swift
/// do {
///     let bytes = try await song.audio?.data()
/// } catch AssetError.missing(let asset) {
///     print("not on this device:", asset)
/// }
/// ```
public enum AssetError: Error, Hashable, LocalizedError {

    /// No asset folder holds the asset's file (never stored here, or collected).
    case missing(Asset)

    /// The asset's file does not hold the content its hash names: damaged or changed. It is
    /// left in place for inspection; store the content again to repair it.
    case corrupted(Asset, foundHash: String, foundSize: Int64)

    /// A hash that is not 64 lowercase hexadecimal digits.
    case invalidHash(String)

    /// A negative size.
    case invalidSize(Int64)

    /// The database keeps no assets: it is a database of your own without an asset folder.
    case noAssetFolder

    /// A transfer from another replica cannot go on: a chunk at the wrong offset, more
    /// bytes than the asset has, or a source that ended early.
    case transferFailed(Asset, reason: String)

    /// Reading or writing a file failed.
    case fileSystem(path: String, reason: String)

    /// The sync server holds no content for the asset (in this account): the replica that
    /// wrote it has not uploaded it yet, or could not. A replica tries again on its next sync.
    case notOnServer(Asset)

    public var errorDescription: String? {
        switch self {
        case .missing(let asset):
            "The file of \(asset) is in no asset folder: it was never stored here, or was collected as garbage."
        case .corrupted(let asset, let foundHash, let foundSize):
            "The file of \(asset) is damaged: its content has the hash \(foundHash) and \(foundSize) bytes."
        case .invalidHash(let hash):
            "\"\(hash)\" is not an asset hash: expected 64 lowercase hexadecimal digits (SHA-256)."
        case .invalidSize(let size):
            "\(size) is not an asset size: sizes are not negative."
        case .noAssetFolder:
            "This database keeps no assets: use InMemoryDatabase, InMemoryHistoryDatabase or SQLiteDatabase, or make your database an AssetStoringDatabase."
        case .transferFailed(let asset, let reason):
            "The transfer of \(asset) failed: \(reason)"
        case .fileSystem(let path, let reason):
            "Cannot read or write the asset file \(path): \(reason)"
        case .notOnServer(let asset):
            "The sync server has no content for \(asset): the replica that wrote it has not uploaded it yet."
        }
    }
}
