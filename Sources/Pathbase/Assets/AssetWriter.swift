import Crypto
import Foundation

/// Writes one asset's content to a temporary file in an asset folder, hashing it as it
/// goes, then renames the file to its hash: a crash leaves at most a temporary file, never
/// half a file under a valid name.
final class AssetWriter {

    /// Temporary files start with this; the garbage collector removes old ones.
    static let temporaryPrefix = ".writing-"

    private let folder: URL
    private let temporaryFile: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var size: Int64 = 0
    private var isFinished = false

    init(folder: URL) throws(AssetError) {
        self.folder = folder
        temporaryFile = folder.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: folder.path, reason: error.localizedDescription)
        }
        guard FileManager.default.createFile(atPath: temporaryFile.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporaryFile.path)
        else {
            throw .fileSystem(path: temporaryFile.path, reason: "cannot create a file in the asset folder")
        }
        self.handle = handle
    }

    deinit {
        discard()
    }

    /// Removes the temporary file of a write that will not finish (an error, a cancelled
    /// task). Called by the failing writer at once: the last reference may go later, on
    /// another thread.
    func discard() {
        guard !isFinished else { return }
        isFinished = true
        // Best effort: a temporary file left behind has no valid name, and the garbage
        // collector removes it after an hour.
        try? handle.close()
        try? FileManager.default.removeItem(at: temporaryFile)
    }

    /// Appends a chunk of the content.
    func append(_ chunk: Data) throws(AssetError) {
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw .fileSystem(path: temporaryFile.path, reason: error.localizedDescription)
        }
        hasher.update(data: chunk)
        size += Int64(chunk.count)
    }

    /// Makes the content durable and gives it its name; returns the asset.
    func finish() throws(AssetError) -> Asset {
        let hash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let asset = try Asset(hash: hash, size: size)
        let destination = folder.appendingPathComponent(hash)
        do {
            try handle.synchronize() // on disk before the name makes it valid
            try handle.close()
        } catch {
            throw .fileSystem(path: temporaryFile.path, reason: error.localizedDescription)
        }
        isFinished = true
        let files = FileManager.default
        do {
            if files.fileExists(atPath: destination.path) {
                try files.removeItem(at: temporaryFile) // equal content is stored once
            } else {
                try files.moveItem(at: temporaryFile, to: destination)
            }
        } catch {
            // Another writer may have stored the same content in between: that is success.
            if files.fileExists(atPath: destination.path) {
                try? files.removeItem(at: temporaryFile)
                return asset
            }
            try? files.removeItem(at: temporaryFile)
            throw .fileSystem(path: destination.path, reason: error.localizedDescription)
        }
        return asset
    }
}
