import Foundation

/// Where a replica fetches the content of assets it lacks: another database's asset
/// folder, or your network client for one.
///
/// ```swift
/// struct ServerAssets: AssetSource {
///     func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data {
///         try await client.download(asset.hash, range: offset..<(offset + Int64(maxCount)))
///     }
/// }
/// ```
///
/// ``AssetStore`` is one: serve it from your sync server's database. Return at most
/// `maxCount` bytes of the content from `offset` — fewer only at the end — and empty data
/// at or past the end.
public protocol AssetSource: Sendable {

    /// Up to `maxCount` bytes of `asset`'s content from byte `offset`.
    func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data
}

extension AssetStore: AssetSource {

    /// Up to `maxCount` bytes of `asset`'s file from `offset`, read off the task threads.
    public func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data {
        try await BlockingWork.run { try self.chunk(of: asset, from: offset, maxCount: maxCount) }
    }

    /// Temporary files of transfers kept for resuming start with this, then the hash.
    static let partialPrefix = ".partial-"

    /// Up to `maxCount` bytes of `asset`'s file from `offset`; empty at or past the end.
    ///
    /// ```swift
    /// let first = try store.chunk(of: asset, from: 0, maxCount: 1 << 20)
    /// ```
    ///
    /// Throws ``AssetError/missing(_:)`` if this folder does not hold the asset. The content
    /// is not hashed here: the receiving side checks it.
    public func chunk(of asset: Asset, from offset: Int64, maxCount: Int) throws(AssetError) -> Data {
        let url = fileURL(for: asset)
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw .missing(asset) }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(Swift.max(offset, 0)))
            return try handle.read(upToCount: Swift.max(maxCount, 0)) ?? Data()
        } catch {
            throw .fileSystem(path: url.path, reason: error.localizedDescription)
        }
    }

    /// How many bytes of `asset` an interrupted transfer already received: where the next
    /// chunk starts.
    public func receivedSize(of asset: Asset) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: partialURL(for: asset).path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0 // no partial file: nothing received
    }

    /// Appends a received chunk of `asset` at `offset`; when the content is complete, checks
    /// its hash and names the file. Returns whether the asset is now stored.
    ///
    /// ```swift
    /// var offset = store.receivedSize(of: asset)               // resume where it stopped
    /// while try !store.receive(try await source.assetChunk(of: asset, from: offset, maxCount: 1 << 20),
    ///                          of: asset, at: offset) {
    ///     offset = store.receivedSize(of: asset)
    /// }
    /// ```
    ///
    /// The chunks wait in a partial file (not a valid name), so an interruption loses
    /// nothing received and a crash never leaves half an asset. Throws
    /// ``AssetError/transferFailed(_:reason:)`` for a chunk at another offset than
    /// ``receivedSize(of:)`` or past the asset's size, and
    /// ``AssetError/corrupted(_:foundHash:foundSize:)`` if the complete content does not
    /// match the hash (the partial file is removed, to start again). Receive one asset from
    /// one task at a time.
    @discardableResult
    public func receive(_ chunk: Data, of asset: Asset, at offset: Int64) throws(AssetError) -> Bool {
        if contains(asset) { return true }
        let partial = partialURL(for: asset)
        let received = receivedSize(of: asset)
        guard offset == received else {
            throw .transferFailed(asset, reason: "a chunk at byte \(offset), but \(received) bytes were received")
        }
        guard received + Int64(chunk.count) <= asset.size else {
            throw .transferFailed(asset, reason: "more than its \(asset.size) bytes")
        }
        if isTemporary { AssetStores.register(temporary: self) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: partial.path),
                !FileManager.default.createFile(atPath: partial.path, contents: nil)
            {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: partial)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: chunk)
            try handle.synchronize()
        } catch {
            throw .fileSystem(path: partial.path, reason: error.localizedDescription)
        }
        guard received + Int64(chunk.count) == asset.size else { return false }
        try completeTransfer(of: asset, from: partial)
        return true
    }

    /// Checks a complete partial file against the hash and gives it its name.
    private func completeTransfer(of asset: Asset, from partial: URL) throws(AssetError) {
        let reader = try AssetReader(asset: asset, url: partial)
        do {
            while try reader.next(upTo: 1 << 20) != nil {}
        } catch {
            try? FileManager.default.removeItem(at: partial) // wrong content: start again
            throw error
        }
        do {
            try FileManager.default.moveItem(at: partial, to: fileURL(for: asset))
        } catch {
            if contains(asset) { // stored meanwhile by another write: equal content
                try? FileManager.default.removeItem(at: partial)
                return
            }
            throw .fileSystem(path: partial.path, reason: error.localizedDescription)
        }
    }

    private func partialURL(for asset: Asset) -> URL {
        folder.appendingPathComponent(Self.partialPrefix + asset.hash)
    }
}

extension Database where Self: Sendable {

    /// The assets that records of this database reference but its asset folder lacks: what
    /// to fetch after a sync brought records from another replica.
    ///
    /// ```swift
    /// let lacking = try await database.missingAssets()
    /// ```
    ///
    /// With history, assets of old records count, as for garbage collection. Throws
    /// ``AssetError``.
    public func missingAssets() async throws -> [Asset] {
        guard let storing = assetStoringDatabase else { throw AssetError.noAssetFolder }
        let store = storing.assets
        let holder = UncheckedTransfer(storing) // the databases that store assets are Sendable
        return try await BlockingWork.run {
            try AssetReferences.assets(in: holder.value)
                .filter { !store.contains($0) }
                .sorted { $0.hash < $1.hash }
        }
    }

    /// Fetches from `source` the content of every asset this database's records reference
    /// and its folder lacks, chunk by chunk; returns the assets received.
    ///
    /// ```swift
    /// try await replica.apply(pulledRecords)                       // records name assets…
    /// try await replica.receiveMissingAssets(from: ServerAssets()) // …their files follow
    /// ```
    ///
    /// Assets transfer by hash, and only those missing here: a second call asks `source`
    /// for nothing. A transfer interrupted (an error, a cancelled task, a crash) resumes
    /// where it stopped on the next call, from the bytes already received. Every asset is
    /// checked against its hash before it gets its name. Memory stays bounded by
    /// `chunkSize`. Throws what `source` throws and ``AssetError``.
    @discardableResult
    public func receiveMissingAssets(from source: some AssetSource, chunkSize: Int = 1 << 20) async throws -> [Asset] {
        let store = try assetStore()
        var received: [Asset] = []
        for asset in try await missingAssets() {
            try await store.receive(asset, from: source, chunkSize: chunkSize)
            received.append(asset)
        }
        return received
    }
}

extension AssetStore {

    /// Fetches the content of one asset from `source` into this folder, chunk by chunk,
    /// from the bytes an interrupted transfer already received; returns the bytes fetched
    /// now. Does nothing for an asset the folder holds.
    @discardableResult
    func receive(_ asset: Asset, from source: some AssetSource, chunkSize: Int) async throws -> Int64 {
        guard !contains(asset) else { return 0 }
        let start = receivedSize(of: asset)
        var offset = start
        while true {
            try Task.checkCancellation()
            let chunk = try await source.assetChunk(of: asset, from: offset, maxCount: Swift.max(chunkSize, 1))
            let at = offset
            if try await BlockingWork.run({ try self.receive(chunk, of: asset, at: at) }) { break }
            guard !chunk.isEmpty else {
                throw AssetError.transferFailed(asset, reason: "the source ended after \(offset) of \(asset.size) bytes")
            }
            offset += Int64(chunk.count)
        }
        return asset.size - start
    }
}
