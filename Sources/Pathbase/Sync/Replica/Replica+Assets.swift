import Foundation

/// Assets through the server: a replica uploads the content of the assets its records
/// reference before pushing them, and downloads the content of the assets of pulled records,
/// by hash, only what the other side lacks, resuming interrupted transfers.
///
/// ```swift
/// recording.audio = try await phone.storeAsset(contentsOf: take)  // a file beside phone.sqlite
/// let report = try await replica.sync()                           // uploads it, then the record
/// print(report.uploadedAssets, report.assetFailures)
/// // on another replica of the account:
/// try await laptop.sync()                                         // the record, then its file
/// let bytes = try await recording.audio?.data()
/// ```
///
/// Needs an ``AssetTransport`` (`HTTPSyncTransport`, `InProcessTransport`) and a database
/// with an asset folder; otherwise records sync and their assets stay where they are.
/// Content moves in chunks of ``assetChunkSize`` bytes, so memory stays bounded whatever
/// the asset's size. An asset that cannot move does not hold records back: it is listed in
/// ``SyncReport/assetFailures`` with its ``AssetError``, and a download is tried again on
/// every later sync until it arrives (``awaitedAssets()``).
extension Replica {

    /// The size of the chunks asset content moves in: 1 MiB.
    public static let assetChunkSize = 1 << 20

    /// The most assets asked about in one inventory request.
    static let assetInventoryLimit = 500

    /// Assets that pulled records reference and whose content this replica has not
    /// downloaded yet (the server did not have it, or the download was interrupted); the
    /// next sync tries again.
    ///
    /// ```swift
    /// if !replica.awaitedAssets().isEmpty { print("some files are still on their way") }
    /// ```
    public func awaitedAssets() -> [Asset] {
        history.get(ReplicaState.awaitedAssets) ?? []
    }

    private var assetTransport: (any AssetTransport)? { transport as? any AssetTransport }

    private var localAssets: AssetStore? { try? database.assetStore() }

    /// The assets `records` reference, or none without an asset transport and folder.
    private func assets(referencedBy records: [Record]) -> Set<Asset> {
        guard assetTransport != nil, localAssets != nil else { return [] }
        var assets = Set<Asset>()
        for record in records {
            // A value whose encoded form does not parse holds no asset the replica can find.
            try? AssetReferences.collect(record.value, into: &assets)
        }
        return assets
    }

    /// The failure of one asset's transfer, to report and go on with the others; `nil` for a
    /// failure of the network or the server (retried by the next sync), to throw.
    private static func assetFailure(_ error: any Error, of asset: Asset) -> AssetError? {
        switch error {
        case let failure as AssetError: failure
        case let refusal as SyncTransportError where !refusal.isTransient:
            .transferFailed(asset, reason: refusal.localizedDescription)
        default: nil
        }
    }

    // MARK: Upload

    /// Uploads the content of the assets `records` reference that the server lacks, from
    /// where an earlier upload stopped. Failures of single assets go in the report; the
    /// network's failures are thrown, so the push waits for the next sync.
    func uploadAssets(referencedBy records: [Record], into report: inout SyncReport) async throws {
        let wanted = assets(referencedBy: records)
        guard let transport = assetTransport, let store = localAssets, !wanted.isEmpty else { return }
        let sorted = wanted.sorted { $0.hash < $1.hash }
        for start in stride(from: 0, to: sorted.count, by: Self.assetInventoryLimit) {
            let batch = Array(sorted[start ..< min(start + Self.assetInventoryLimit, sorted.count)])
            let response = try await transport.missingAssets(AssetInventoryRequest(assets: batch))
            for state in response.missing where wanted.contains(state.asset) {
                do {
                    let sent = try await upload(state, from: store, through: transport)
                    report.uploadedAssets += 1
                    report.uploadedAssetBytes += sent
                } catch {
                    guard let failure = Self.assetFailure(error, of: state.asset) else { throw error }
                    report.assetFailures.append(failure)
                }
            }
        }
    }

    /// Sends one asset's content from `state.received` on; returns the bytes sent. When the
    /// server holds another part than expected (another upload of the same content ran
    /// meanwhile: HTTP 409), it asks where to go on, a few times.
    private func upload(_ state: AssetUploadState, from store: AssetStore, through transport: any AssetTransport) async throws -> Int64 {
        let asset = state.asset
        guard store.contains(asset) else { throw AssetError.missing(asset) }
        var offset = state.received
        var sent: Int64 = 0
        var restarts = 0
        while true {
            try Task.checkCancellation()
            let at = offset
            let size = Replica.assetChunkSize
            let chunk = try await BlockingWork.run { try store.chunk(of: asset, from: at, maxCount: size) }
            if chunk.isEmpty, at < asset.size {
                throw AssetError.corrupted(asset, foundHash: "(not read)", foundSize: at)
            }
            let answer: AssetUploadState
            do {
                answer = try await transport.uploadAssetChunk(chunk, of: asset, at: at)
            } catch SyncTransportError.refused(status: 409, let reason) where restarts < 3 {
                restarts += 1
                let missing = try await transport.missingAssets(AssetInventoryRequest(assets: [asset])).missing
                guard let current = missing.first(where: { $0.asset == asset }) else { return sent } // stored by the other
                guard current.received != at else { throw AssetError.transferFailed(asset, reason: reason) }
                offset = current.received
                continue
            }
            sent += Int64(chunk.count)
            if answer.isComplete { return sent }
            guard answer.received > at, answer.received <= asset.size else {
                throw AssetError.transferFailed(asset, reason: "the server holds \(answer.received) bytes after a chunk at byte \(at)")
            }
            offset = answer.received
        }
    }

    // MARK: Download

    /// The assets to wait for once `records` are stored: the ones waited for already and the
    /// new ones they reference that this replica lacks; `nil` when that changes nothing.
    func assetsToAwait(after records: [Record]) -> [Asset]? {
        let referenced = assets(referencedBy: records)
        guard let store = localAssets, !referenced.isEmpty else { return nil }
        let awaited = awaitedAssets()
        let known = Set(awaited)
        let new = referenced.filter { !known.contains($0) && !store.contains($0) }.sorted { $0.hash < $1.hash }
        return new.isEmpty ? nil : awaited + new
    }

    /// Downloads the awaited assets this replica lacks, each from where an interrupted
    /// download stopped, and keeps the ones that did not arrive for the next sync. Failures
    /// of single assets go in the report; a failure of the network is thrown after the
    /// others were tried.
    func downloadAwaitedAssets(into report: inout SyncReport) async throws {
        let awaited = awaitedAssets()
        guard let transport = assetTransport, let store = localAssets, !awaited.isEmpty else { return }
        var remaining: [Asset] = []
        var networkFailure: (any Error)?
        for asset in awaited {
            guard networkFailure == nil else {
                remaining.append(asset)
                continue
            }
            do {
                let received = try await store.receive(asset, from: transport, chunkSize: Self.assetChunkSize)
                if received > 0 {
                    report.downloadedAssets += 1
                    report.downloadedAssetBytes += received
                }
            } catch {
                if let failure = Self.assetFailure(error, of: asset) {
                    report.assetFailures.append(failure)
                } else {
                    networkFailure = error
                }
                remaining.append(asset)
            }
        }
        if remaining != awaited {
            let history = self.history
            try Replica.store(in: history) { history.set(remaining, for: ReplicaState.awaitedAssets) }
        }
        if let networkFailure { throw networkFailure }
    }
}
