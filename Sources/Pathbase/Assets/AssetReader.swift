import Crypto
import Foundation

/// Reads an asset's file chunk by chunk, hashing as it goes; the end of the file checks the
/// hash, so a damaged file is reported by the read that would have finished it.
final class AssetReader {

    private let asset: Asset
    private let handle: FileHandle
    private let path: String
    private var hasher = SHA256()
    private var size: Int64 = 0
    private var isDone = false

    /// Opens the file of `asset` at `url`.
    init(asset: Asset, url: URL) throws(AssetError) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw .missing(asset) }
        self.asset = asset
        self.handle = handle
        self.path = url.path
    }

    deinit {
        try? handle.close()
    }

    /// The next chunk of at most `count` bytes, or `nil` at the end of a file that holds the
    /// asset's content; throws ``AssetError/corrupted(_:foundHash:foundSize:)`` otherwise.
    func next(upTo count: Int) throws(AssetError) -> Data? {
        guard !isDone else { return nil }
        let chunk: Data?
        do {
            chunk = try handle.read(upToCount: count)
        } catch {
            throw .fileSystem(path: path, reason: error.localizedDescription)
        }
        if let chunk, !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
            if size <= asset.size { return chunk }
        }
        isDone = true
        let foundHash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard size == asset.size, foundHash == asset.hash else {
            throw .corrupted(asset, foundHash: size > asset.size ? "(longer than expected)" : foundHash, foundSize: size)
        }
        return nil
    }

    /// The whole content, checked.
    func readAll() throws(AssetError) -> Data {
        var data = Data(capacity: Int(clamping: asset.size))
        while let chunk = try next(upTo: 1 << 20) { data.append(chunk) }
        return data
    }
}
