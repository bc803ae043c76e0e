import Foundation

extension Asset {

    /// The whole content, read off the task threads and checked against the hash.
    ///
    /// ```swift
    /// let bytes = try await song.audio?.data()
    /// ```
    ///
    /// Looks for the file in every asset folder of this process (any folder holding the hash
    /// holds the content). Throws ``AssetError/missing(_:)`` if none has it and
    /// ``AssetError/corrupted(_:foundHash:foundSize:)`` if the file's content does not match.
    /// For large assets, read ``chunks(ofSize:)`` or open ``fileURL()``.
    public func data() async throws -> Data {
        try await BlockingWork.run { [self] in try reader(preferring: nil).readAll() }
    }

    /// The file that holds the content, for APIs that take a file (players, viewers).
    ///
    /// ```swift
    /// let player = try AVAudioPlayer(contentsOf: song.audio!.fileURL())
    /// ```
    ///
    /// Throws ``AssetError/missing(_:)`` if no asset folder holds it, and
    /// ``AssetError/corrupted(_:foundHash:foundSize:)`` if its size is wrong. The content is
    /// not hashed (that would read it all): use ``data()`` or ``chunks(ofSize:)`` to have it
    /// checked. Treat the file as read-only.
    public func fileURL() throws(AssetError) -> URL {
        guard let store = AssetStores.store(holding: self) else { throw .missing(self) }
        let url = store.fileURL(for: self)
        let found = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        guard let found else { throw .missing(self) }
        guard found == size else { throw .corrupted(self, foundHash: "(not read)", foundSize: found) }
        return url
    }

    /// The content as chunks of at most `chunkSize` bytes, read as the loop asks; see
    /// ``AssetChunks``.
    ///
    /// ```swift
    /// for try await chunk in asset.chunks(ofSize: 1 << 20) { output.write(chunk) }
    /// ```
    public func chunks(ofSize chunkSize: Int = 1 << 20) -> AssetChunks {
        AssetChunks(asset: self, chunkSize: chunkSize, store: nil)
    }

    /// A reader of the file in `store` when it holds it, else in any store of this process.
    func reader(preferring store: AssetStore?) throws(AssetError) -> AssetReader {
        let holder = store.flatMap { $0.contains(self) ? $0 : nil } ?? AssetStores.store(holding: self)
        guard let holder else { throw .missing(self) }
        return try AssetReader(asset: self, url: holder.fileURL(for: self))
    }
}
