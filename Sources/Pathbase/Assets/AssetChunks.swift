import Foundation

/// An asset's content as an `AsyncSequence` of chunks, read from its file one chunk at a
/// time as the loop asks, so memory stays bounded whatever the asset's size.
///
/// ```swift
/// var total = 0
/// for try await chunk in asset.chunks(ofSize: 1 << 20) {
///     total += chunk.count
/// }
/// ```
///
/// Each chunk is read off the task threads. The file is checked as it is read: the last
/// step throws ``AssetError/corrupted(_:foundHash:foundSize:)`` if the content does not
/// match the asset's hash (chunks already delivered were not that content), and the first
/// throws ``AssetError/missing(_:)`` if no asset folder holds the file.
public struct AssetChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The asset read.
    public let asset: Asset

    /// The largest chunk delivered, in bytes.
    public let chunkSize: Int

    /// The store to read from; `nil`: any store of this process holding the file.
    let store: AssetStore?

    public func makeAsyncIterator() -> Iterator {
        Iterator(asset: asset, chunkSize: Swift.max(chunkSize, 1), store: store)
    }

    /// Reads the next chunk when asked.
    public struct Iterator: AsyncIteratorProtocol {
        let asset: Asset
        let chunkSize: Int
        let store: AssetStore?
        private var reader: UncheckedTransfer<AssetReader>? // one task, one read at a time

        init(asset: Asset, chunkSize: Int, store: AssetStore?) {
            self.asset = asset
            self.chunkSize = chunkSize
            self.store = store
        }

        public mutating func next() async throws -> Data? {
            let reader: UncheckedTransfer<AssetReader>
            if let existing = self.reader {
                reader = existing
            } else {
                let (asset, store) = (asset, store)
                reader = try await BlockingWork.run { UncheckedTransfer(try asset.reader(preferring: store)) }
                self.reader = reader
            }
            let size = chunkSize
            return try await BlockingWork.run { try reader.value.next(upTo: size) }
        }
    }
}
