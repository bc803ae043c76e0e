import Crypto
import Foundation
import Pathbase

/// Asset content through the server: replicas upload the content of the assets their
/// records reference, in chunks, and download the ones they lack, per account, by hash.
/// The server keeps them in an ``AssetContentStore``.
///
/// ```swift
/// let lacking = try await server.missingAssets(AssetInventoryRequest(assets: [asset]), token: token)
/// let state = try await server.uploadAssetChunk(content, of: asset, at: 0, token: token)
/// let chunk = try await server.downloadAssetChunk(asset.hash, from: 0, maxCount: 1 << 20, token: token)
/// ```
///
/// An upload is resumable: each chunk goes where the stored part ends, which
/// ``missingAssets(_:token:)`` tells. When the last byte arrives the server checks the
/// content's SHA-256 — hashed as the chunks arrived when they all came through this process
/// in order, otherwise read back chunk by chunk: a mismatch removes it and throws
/// ``SyncServerError/assetContentMismatch(hash:foundHash:)``, so only checked content is
/// ever downloaded. Memory stays bounded by a chunk (``maximumAssetChunkSize``).
extension SyncServer {

    /// The largest chunk of asset content one request carries, in bytes: 4 MiB.
    public static let maximumAssetChunkSize = 4 << 20

    /// The most assets one `AssetInventoryRequest` may name.
    public static let maximumAssetInventory = 1000

    /// The assets of `request` whose content the token's account lacks, each with the bytes
    /// an interrupted upload left.
    public func missingAssets(_ request: AssetInventoryRequest, token: String) async throws -> AssetInventoryResponse {
        let (store, account) = try await assetStore(token)
        guard request.assets.count <= Self.maximumAssetInventory else {
            throw SyncServerError.invalidAssetRequest("\(request.assets.count) assets in one request; the server takes at most \(Self.maximumAssetInventory)")
        }
        let stored = try await store.storedAssets(Array(Set(request.assets.map(\.hash))), in: account)
        var seen = Set<Asset>()
        let missing = request.assets.compactMap { asset -> AssetUploadState? in
            guard seen.insert(asset).inserted else { return nil }
            guard let held = stored[asset.hash] else { return AssetUploadState(asset: asset, received: 0, isComplete: false) }
            if held.isComplete, held.asset.size == asset.size { return nil }
            // Another size than the one stored is content to upload from the start.
            return AssetUploadState(asset: asset, received: held.asset.size == asset.size ? held.received : 0, isComplete: false)
        }
        return AssetInventoryResponse(missing: missing)
    }

    /// Stores a chunk of `asset`'s content at byte `offset`, where the stored part ends;
    /// once the content is whole, checks it against the hash.
    public func uploadAssetChunk(_ chunk: Data, of asset: Asset, at offset: Int64, token: String) async throws -> AssetUploadState {
        let (store, account) = try await assetStore(token)
        guard chunk.count <= Self.maximumAssetChunkSize else {
            throw SyncServerError.assetChunkTooLarge(size: chunk.count, maximum: Self.maximumAssetChunkSize)
        }
        guard offset >= 0, offset <= asset.size - Int64(chunk.count) else {
            throw SyncServerError.invalidAssetRequest("\(chunk.count) bytes at byte \(offset) lie outside an asset of \(asset.size) bytes")
        }
        // An empty chunk only at the end: it asks for the check of content whose last chunk
        // arrived but whose check did not finish (the request was cut off).
        guard !chunk.isEmpty || offset == asset.size else {
            throw SyncServerError.invalidAssetRequest("an empty chunk at byte \(offset) of an asset of \(asset.size) bytes")
        }
        if let held = try await store.storedAssets([asset.hash], in: account)[asset.hash] {
            if held.isComplete {
                guard held.asset.size == asset.size else {
                    throw SyncServerError.invalidAssetRequest("the server holds asset \(asset.hash) with \(held.asset.size) bytes, not \(asset.size)")
                }
                return AssetUploadState(asset: asset, received: asset.size, isComplete: true)
            }
            if held.asset.size != asset.size {
                // An upload that declared another size can never complete: start again.
                guard offset == 0 else {
                    throw SyncServerError.assetOffsetMismatch(hash: asset.hash, offset: offset, received: 0)
                }
                try await store.removeIncompleteAsset(asset.hash, in: account)
            }
        }
        let received = try await store.appendAssetChunk(chunk, to: asset, at: offset, in: account)
        uploadHashes.add(chunk, at: offset, of: asset.hash, in: account)
        guard received == asset.size else {
            return AssetUploadState(asset: asset, received: received, isComplete: false)
        }
        // Hashed here chunk by chunk, or else read back: only checked content completes.
        if uploadHashes.finish(asset.hash, size: asset.size, in: account) != asset.hash {
            try await checkContent(of: asset, in: store, account: account)
        }
        try await store.completeAsset(asset, in: account)
        return AssetUploadState(asset: asset, received: received, isComplete: true)
    }

    /// Up to `maxCount` bytes (at most ``maximumAssetChunkSize``) of the complete asset with
    /// this hash, from `offset`.
    public func downloadAssetChunk(_ hash: String, from offset: Int64, maxCount: Int, token: String) async throws -> AssetDownload {
        let (store, account) = try await assetStore(token)
        do {
            _ = try Asset(hash: hash, size: 0)
        } catch {
            throw SyncServerError.invalidAssetRequest(error.localizedDescription)
        }
        guard offset >= 0, maxCount >= 1 else {
            throw SyncServerError.invalidAssetRequest("a range of \(maxCount) bytes from byte \(offset)")
        }
        guard let held = try await store.storedAssets([hash], in: account)[hash], held.isComplete else {
            throw SyncServerError.unknownAsset(hash)
        }
        guard offset < held.asset.size || (offset == 0 && held.asset.size == 0) else {
            throw SyncServerError.assetRangeNotSatisfiable(offset: offset, size: held.asset.size)
        }
        let bytes = try await store.assetChunk(hash, from: offset, maxCount: min(maxCount, Self.maximumAssetChunkSize), in: account)
        return AssetDownload(bytes: bytes, offset: offset, assetSize: held.asset.size)
    }

    /// Reads the stored content back, chunk by chunk, and compares its hash; a mismatch
    /// removes it.
    private func checkContent(of asset: Asset, in store: any AssetContentStore, account: AccountID) async throws {
        var hasher = SHA256()
        var offset: Int64 = 0
        while offset < asset.size {
            let chunk = try await store.assetChunk(asset.hash, from: offset, maxCount: Self.maximumAssetChunkSize, in: account)
            guard !chunk.isEmpty else { break }
            hasher.update(data: chunk)
            offset += Int64(chunk.count)
        }
        let found = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard offset == asset.size, found == asset.hash else {
            try await store.removeIncompleteAsset(asset.hash, in: account)
            throw SyncServerError.assetContentMismatch(hash: asset.hash, foundHash: found)
        }
    }

    private func assetStore(_ token: String) async throws -> (any AssetContentStore, AccountID) {
        let account = try await authenticate(token)
        guard let store = store as? any AssetContentStore else { throw SyncServerError.assetStorageUnavailable }
        return (store, account)
    }
}

/// A downloaded chunk of an asset's content.
///
/// ```swift
/// let chunk = try await server.downloadAssetChunk(hash, from: 0, maxCount: 1 << 20, token: token)
/// print(chunk.bytes.count, "of", chunk.assetSize)
/// ```
public struct AssetDownload: Hashable, Sendable {

    /// The bytes, from ``offset``.
    public var bytes: Data

    /// Where in the content they start.
    public var offset: Int64

    /// The asset's whole size.
    public var assetSize: Int64

    /// A chunk of `assetSize` bytes of content, from `offset`.
    public init(bytes: Data, offset: Int64, assetSize: Int64) {
        self.bytes = bytes
        self.offset = offset
        self.assetSize = assetSize
    }
}
