import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// A source that serves another store's chunks, counts the requests and the offsets asked,
/// and can fail after a number of chunks (a dropped connection) or serve altered bytes.
final class CountingAssetSource: AssetSource {
    struct ConnectionDropped: Error {}

    let store: AssetStore
    let failAfter: Int?
    let alter: Bool
    private let asked = Locked<[Int64]>([])

    init(store: AssetStore, failAfter: Int? = nil, alter: Bool = false) {
        self.store = store
        self.failAfter = failAfter
        self.alter = alter
    }

    var offsets: [Int64] { asked.withLock { $0 } }

    func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data {
        let count = asked.withLock { asked in
            asked.append(offset)
            return asked.count
        }
        if let failAfter, count > failAfter { throw ConnectionDropped() }
        var chunk = try await store.assetChunk(of: asset, from: offset, maxCount: maxCount)
        if alter, !chunk.isEmpty { chunk[chunk.startIndex] ^= 0xFF }
        return chunk
    }
}

@Suite("Assets: transfer between replicas by hash")
struct AssetTransferTests {

    /// A sender with one song and its asset, and a receiver holding the song's records only.
    private func replicas(size: Int = 10_000) async throws -> (sender: InMemoryHistoryDatabase, receiver: SQLiteDatabase, asset: Asset) {
        let sender = InMemoryHistoryDatabase()
        let bytes = Data((0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let asset = try await sender.storeAsset(bytes)
        let receiver = SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        AssetSong.create(in: receiver, id: 1, title: "synced", audio: asset) // as a sync apply would
        return (sender, receiver, asset)
    }

    @Test("Only missing assets transfer, checked, and a second call asks for nothing")
    func onlyMissing() async throws {
        let (sender, receiver, asset) = try await replicas()
        #expect(try await receiver.missingAssets() == [asset])
        let source = CountingAssetSource(store: try sender.assetStore())
        #expect(try await receiver.receiveMissingAssets(from: source, chunkSize: 4096) == [asset])
        #expect(source.offsets == [0, 4096, 8192])
        #expect(try await receiver.missingAssets().isEmpty)
        #expect(try receiver.assetStore().data(of: asset) == sender.assetStore().data(of: asset))
        #expect(try await receiver.receiveMissingAssets(from: source).isEmpty)
        #expect(source.offsets.count == 3) // nothing asked the second time
    }

    @Test("An interrupted transfer resumes from the bytes already received")
    func resumes() async throws {
        let (sender, receiver, asset) = try await replicas()
        let dropping = CountingAssetSource(store: try sender.assetStore(), failAfter: 2)
        await #expect(throws: CountingAssetSource.ConnectionDropped.self) {
            try await receiver.receiveMissingAssets(from: dropping, chunkSize: 3000)
        }
        let store = try receiver.assetStore()
        #expect(store.receivedSize(of: asset) == 6000)
        #expect(!store.contains(asset)) // half an asset never has a valid name
        #expect(throws: AssetError.missing(asset)) { try store.data(of: asset) }
        let source = CountingAssetSource(store: try sender.assetStore())
        try await receiver.receiveMissingAssets(from: source, chunkSize: 3000)
        #expect(source.offsets == [6000, 9000])
        #expect(try store.data(of: asset).count == 10_000)
    }

    @Test("Altered bytes fail the hash check: nothing is named, the next transfer starts again")
    func alteredContent() async throws {
        let (sender, receiver, asset) = try await replicas()
        let altered = CountingAssetSource(store: try sender.assetStore(), alter: true)
        let error = await #expect(throws: AssetError.self) { try await receiver.receiveMissingAssets(from: altered) }
        // README: "a file whose content does not match its hash `AssetError.corrupted`".
        guard case .corrupted(asset, _, _)? = error else {
            Issue.record("expected AssetError.corrupted, got \(String(describing: error))")
            return
        }
        let store = try receiver.assetStore()
        #expect(!store.contains(asset) && store.receivedSize(of: asset) == 0)
        try await receiver.receiveMissingAssets(from: CountingAssetSource(store: try sender.assetStore()))
        #expect(store.contains(asset))
    }

    @Test("Chunks out of order, past the end, or a source that ends early give transferFailed")
    func badChunks() async throws {
        let (sender, receiver, asset) = try await replicas(size: 100)
        let store = try receiver.assetStore()
        for (chunk, offset) in [(Data(count: 10), Int64(50)), (Data(count: 101), Int64(0))] {
            let error = #expect(throws: AssetError.self) { try store.receive(chunk, of: asset, at: offset) }
            guard case .transferFailed(asset, _)? = error else {
                Issue.record("expected AssetError.transferFailed for \(chunk.count) bytes at \(offset), got \(String(describing: error))")
                continue
            }
        }
        #expect(store.receivedSize(of: asset) == 0)
        let empty = InMemoryDatabase() // a source that lacks the asset
        await #expect(throws: AssetError.missing(asset)) {
            try await receiver.receiveMissingAssets(from: CountingAssetSource(store: try empty.assetStore()))
        }
        _ = sender
    }

    @Test("Garbage collection removes a partial transfer of an asset no longer referenced")
    func partialGarbage() async throws {
        let (sender, receiver, asset) = try await replicas()
        let dropping = CountingAssetSource(store: try sender.assetStore(), failAfter: 1)
        await #expect(throws: CountingAssetSource.ConnectionDropped.self) {
            try await receiver.receiveMissingAssets(from: dropping, chunkSize: 1000)
        }
        let store = try receiver.assetStore()
        #expect(store.receivedSize(of: asset) == 1000)
        #expect(try await receiver.collectAssetGarbage() == 0)
        #expect(store.receivedSize(of: asset) == 1000) // still referenced (history): kept for resuming
        let other = try SQLiteDatabase() // a receiver without the reference
        #expect(try other.assetStore().receive(Data(count: 10), of: asset, at: 0) == false)
        #expect(try await other.collectAssetGarbage() == 0)
        #expect(try other.assetStore().receivedSize(of: asset) == 0)
    }
}
