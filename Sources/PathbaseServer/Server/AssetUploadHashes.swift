import Crypto
import Foundation
import Pathbase

/// The SHA-256 of the uploads in progress on this server process, fed with each chunk the
/// store accepted, in order: a complete upload is checked without reading it back.
///
/// ```swift
/// hashes.add(chunk, at: offset, of: asset.hash, in: account)   // after the store took it
/// if hashes.finish(asset.hash, size: asset.size, in: account) == asset.hash { … } // checked
/// ```
///
/// Only a hint: an upload whose chunks went through another process, arrived out of order or
/// was forgotten (at most ``capacity`` are kept) has no hash here, and the server reads the
/// stored content back to check it. Safe to use from any thread.
final class AssetUploadHashes: Sendable {

    /// How many uploads are followed at once; one more forgets an arbitrary one.
    static let capacity = 256

    private struct Key: Hashable {
        var account: AccountID
        var hash: String
    }

    private struct Progress {
        var received: Int64
        var hasher: SHA256
    }

    private let uploads = Locked<[Key: Progress]>([:])

    /// Adds a chunk the store accepted at `offset`: a chunk at byte 0 starts the hash, one
    /// where the hashed part ends goes on with it, any other forgets the upload.
    func add(_ chunk: Data, at offset: Int64, of hash: String, in account: AccountID) {
        let key = Key(account: account, hash: hash)
        uploads.withLock { uploads in
            var progress: Progress
            if offset == 0 {
                progress = Progress(received: 0, hasher: SHA256())
            } else if let known = uploads[key], known.received == offset {
                progress = known
            } else {
                uploads[key] = nil
                return
            }
            progress.hasher.update(data: chunk)
            progress.received += Int64(chunk.count)
            if uploads[key] == nil, uploads.count >= Self.capacity {
                uploads.remove(at: uploads.startIndex)
            }
            uploads[key] = progress
        }
    }

    /// The hash of an upload whose `size` bytes were all hashed here, or `nil`; forgets it.
    func finish(_ hash: String, size: Int64, in account: AccountID) -> String? {
        let progress = uploads.withLock { $0.removeValue(forKey: Key(account: account, hash: hash)) }
        guard let progress, progress.received == size else { return nil }
        return progress.hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
