import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Model(id: 2092)
final class ServerVideo {
    @Property(id: 1)
    var file: Asset?
}

/// A large asset through a real `pathbase serve` process: uploaded by one replica, downloaded
/// by another, in chunks, with bounded memory on both sides.
///
/// `PATHBASE_SYNC_ASSET_MIB` sets the size (8 MiB by default; scripts/reliability: 256). Peak
/// memory is a process's: the bounds are checked when scripts/reliability runs the suite
/// alone (`PATHBASE_MEASURE_MEMORY=1`); the figures are printed always.
@Suite("Faults: a large asset moves through pathbase serve with bounded memory", .serialized)
struct AssetSyncMemoryTests {

    static let measuresMemory = ProcessInfo.processInfo.environment["PATHBASE_MEASURE_MEMORY"] == "1"

    /// The most either process's peak memory may grow; a chunk is 1 MiB on the wire and
    /// at most 4 MiB in the server's store.
    static let memoryBoundMiB = 64

    @Test("a replica uploads a large asset to a pathbase serve process and another downloads it: the same content, peak memory grows by a bounded amount", arguments: StoreKind.persistent)
    func largeAsset(kind: StoreKind) async throws {
        let mebibytes = try StressSettings.count("PATHBASE_SYNC_ASSET_MIB", default: 8)
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }

        let writer = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let asset = try await writer.storeAsset(chunks: GeneratedChunks(count: mebibytes, size: 1 << 20))
        ServerVideo.create(in: writer, id: 1, file: asset)
        let reader = try SQLiteDatabase(path: ServerTestFiles.newPath())

        let memory = MemoryWatch(server: serve.pid)
        let start = ContinuousClock.now
        let up = try await Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token)).sync()
        let uploaded = ContinuousClock.now
        let down = try await Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token)).sync()
        let downloaded = ContinuousClock.now
        let peaks = try memory?.peaks()

        #expect(up.uploadedAssetBytes == asset.size && up.assetFailures.isEmpty, "\(up)")
        #expect(down.downloadedAssetBytes == asset.size && down.assetFailures.isEmpty, "\(down)")
        // The writer's file goes, so that the reader's is the one read (and hashed at the end).
        try FileManager.default.removeItem(at: writer.assetStore().fileURL(for: asset))
        #expect(try reader.assetStore().contains(asset))
        var index = 0
        for try await chunk in asset.chunks(ofSize: 1 << 20) {
            #expect(chunk.first == GeneratedChunks.byte(at: index) && chunk.last == GeneratedChunks.byte(at: index))
            index += 1
        }
        #expect(index == mebibytes)

        func seconds(_ duration: Duration) -> String {
            String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        let memoryFigures = MemoryWatch.figures(peaks)
        print("[reliability] sync.asset-\(mebibytes)MiB.\(kind): uploaded in \(seconds(uploaded - start)), downloaded in \(seconds(downloaded - uploaded)), \(memoryFigures)")
        if Self.measuresMemory { MemoryWatch.expectGrowth(peaks, below: Self.memoryBoundMiB) }
    }
}
