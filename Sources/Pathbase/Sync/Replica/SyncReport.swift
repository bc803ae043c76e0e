/// What one ``Replica/sync()`` moved: records pushed, acknowledged, rejected, pulled, the
/// pull cursor it ended at, and the asset content uploaded and downloaded.
///
/// ```swift
/// let report = try await replica.sync()
/// print("pushed \(report.pushed), pulled \(report.pulled), cursor \(report.cursor)")
/// ```
public struct SyncReport: Hashable, Sendable, CustomStringConvertible {

    /// Records sent to the server (retried ones included).
    public var pushed = 0

    /// Records the server acknowledged.
    public var acknowledged = 0

    /// Records the server refused (see ``Replica/rejectedRecords()``).
    public var rejected = 0

    /// Records received from the server and applied (newest wins per path).
    public var pulled = 0

    /// The server sequence number the replica has everything up to.
    public var cursor: Int64 = 0

    /// Assets uploaded to the server before the records that reference them (only those
    /// it lacked), and their bytes sent (an interrupted upload resumes: fewer than the size).
    public var uploadedAssets = 0

    /// Bytes of asset content sent to the server.
    public var uploadedAssetBytes: Int64 = 0

    /// Assets of pulled records downloaded from the server (only those this replica
    /// lacked).
    public var downloadedAssets = 0

    /// Bytes of asset content received from the server.
    public var downloadedAssetBytes: Int64 = 0

    /// The assets that could not be moved, each as its error: a file missing or damaged
    /// here (``AssetError/missing(_:)``, ``AssetError/corrupted(_:foundHash:foundSize:)``),
    /// content the server does not hold yet (``AssetError/notOnServer(_:)``), or content it
    /// refused (``AssetError/transferFailed(_:reason:)``). The records were pushed and
    /// applied all the same; the next sync tries the downloads again
    /// (``Replica/awaitedAssets()``).
    public var assetFailures: [AssetError] = []

    /// An empty report.
    public init() {}

    public var description: String {
        var text = "pushed \(pushed) (acknowledged \(acknowledged), rejected \(rejected)), pulled \(pulled), cursor \(cursor)"
        if uploadedAssets > 0 || downloadedAssets > 0 || !assetFailures.isEmpty {
            text += "; assets uploaded \(uploadedAssets) (\(uploadedAssetBytes) bytes), downloaded \(downloadedAssets) (\(downloadedAssetBytes) bytes), failed \(assetFailures.count)"
        }
        return text
    }

    /// Adds the counts of `other`, a later step or sync, and takes its cursor.
    mutating func add(_ other: SyncReport) {
        pushed += other.pushed
        acknowledged += other.acknowledged
        rejected += other.rejected
        pulled += other.pulled
        cursor = other.cursor
        uploadedAssets += other.uploadedAssets
        uploadedAssetBytes += other.uploadedAssetBytes
        downloadedAssets += other.downloadedAssets
        downloadedAssetBytes += other.downloadedAssetBytes
        assetFailures += other.assetFailures
    }
}
