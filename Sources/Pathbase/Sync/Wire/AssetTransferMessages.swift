import Foundation

// The messages that move asset content through a sync server: a replica asks which of its
// assets the server lacks (and how much of each an interrupted upload left there), then
// uploads the rest chunk by chunk; content itself travels as raw bytes, not JSON.

/// Asks a sync server which of these assets its account lacks.
///
/// ```swift
/// let lacking = try await transport.missingAssets(AssetInventoryRequest(assets: [asset]))
/// ```
public struct AssetInventoryRequest: Codable, Hashable, Sendable {

    /// The assets asked about; a server takes at most 1000 in one request.
    public var assets: [Asset]

    /// A request about `assets`.
    public init(assets: [Asset]) {
        self.assets = assets
    }
}

/// A sync server's answer to an ``AssetInventoryRequest``: the assets it lacks, each with the
/// bytes an earlier, interrupted upload left there.
///
/// ```swift
/// for missing in response.missing { print(missing.asset, "resumes at", missing.received) }
/// ```
public struct AssetInventoryResponse: Codable, Hashable, Sendable {

    /// The assets whose content the server does not hold whole, in the order asked.
    public var missing: [AssetUploadState]

    /// A response naming the missing assets.
    public init(missing: [AssetUploadState]) {
        self.missing = missing
    }
}

/// How far the upload of one asset to a sync server got: the next chunk starts at
/// ``received``.
///
/// ```swift
/// let state = try await transport.uploadAssetChunk(chunk, of: asset, at: 0)
/// if state.isComplete { print("stored and checked") }
/// ```
public struct AssetUploadState: Codable, Hashable, Sendable {

    /// The asset.
    public var asset: Asset

    /// How many bytes of it the server holds, from the start.
    public var received: Int64

    /// Whether the server holds the whole content, checked against its hash.
    public var isComplete: Bool

    /// The state of an upload: `received` bytes held; complete once the content was
    /// checked against the hash.
    public init(asset: Asset, received: Int64, isComplete: Bool) {
        self.asset = asset
        self.received = received
        self.isComplete = isComplete
    }

    private enum CodingKeys: String, CodingKey {
        case asset, received
        case isComplete = "complete"
    }
}
