import Foundation

/// A ``SyncTransport`` that also moves asset content to and from the sync server, by hash:
/// what lets ``Replica/sync()`` carry the files behind the ``Asset`` values of its records.
///
/// ```swift
/// let transport = HTTPSyncTransport(server: url, token: token) // an AssetTransport
/// let lacking = try await transport.missingAssets(AssetInventoryRequest(assets: [asset]))
/// for state in lacking.missing {
///     let chunk = try database.assetStore().chunk(of: state.asset, from: state.received, maxCount: 1 << 20)
///     _ = try await transport.uploadAssetChunk(chunk, of: state.asset, at: state.received)
/// }
/// ```
///
/// A replica uses it by itself: before pushing records it uploads the assets they reference
/// that the server lacks, resuming where an interrupted upload stopped; after pulling, it
/// downloads the ones it lacks (a transport is an ``AssetSource``). `HTTPSyncTransport` and
/// `PathbaseServer`'s `InProcessTransport` conform. A download of an asset the server does
/// not hold throws ``AssetError/notOnServer(_:)``.
public protocol AssetTransport: SyncTransport, AssetSource {

    /// The assets of `request` whose content the server lacks, with the bytes it holds of
    /// each.
    func missingAssets(_ request: AssetInventoryRequest) async throws -> AssetInventoryResponse

    /// Sends `chunk`, the bytes of `asset` from byte `offset`, which must be where the
    /// server's copy ends; returns how far the upload got. The server checks the whole
    /// content against the hash when the last byte arrives.
    func uploadAssetChunk(_ chunk: Data, of asset: Asset, at offset: Int64) async throws -> AssetUploadState
}
