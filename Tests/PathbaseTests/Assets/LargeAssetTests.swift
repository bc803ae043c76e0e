import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

@Suite("Assets: a large asset with bounded memory")
struct LargeAssetTests {

    /// The asset's size: `PATHBASE_LARGE_ASSET_MIB` MiB, 256 by default (large enough that
    /// holding it would show); scripts/reliability writes and reads the issue's 1 GiB.
    static func assetSize() throws -> Int {
        try StressSettings.count("PATHBASE_LARGE_ASSET_MIB", default: 256) << 20
    }

    static let chunkSize = 1 << 20

    /// Peak memory is the process's: other suites running beside this one would count. So
    /// the test runs when scripts/reliability runs it alone (`PATHBASE_MEASURE_MEMORY=1`).
    static let measuresMemory = ProcessInfo.processInfo.environment["PATHBASE_MEASURE_MEMORY"] == "1"

    @Test(
        "Writing and reading a large asset (256 MiB, 1 GiB in scripts/reliability) in chunks keeps peak memory far below its size",
        .enabled(if: measuresMemory, "run alone by scripts/reliability (PATHBASE_MEASURE_MEMORY=1)"))
    func boundedMemory() async throws {
        guard let startResident = ProcessMemory.kibibytes("VmRSS") else {
            Issue.record("no /proc/self/status on this system: peak memory is not measured")
            return
        }
        let assetSize = try Self.assetSize()
        ProcessMemory.resetPeak()
        let started = ContinuousClock.now
        let database = InMemoryDatabase()
        let chunkCount = assetSize / Self.chunkSize
        let asset = try await database.storeAsset(chunks: GeneratedChunks(count: chunkCount, size: Self.chunkSize))
        #expect(asset.size == Int64(assetSize))
        let written = ContinuousClock.now

        // Read back chunk by chunk; the reader checks the hash at the end.
        var total = 0
        for try await chunk in asset.chunks(ofSize: Self.chunkSize) {
            let expected = GeneratedChunks.byte(at: (total / Self.chunkSize))
            #expect(chunk.first == expected && chunk.last == expected)
            total += chunk.count
        }
        #expect(total == assetSize)
        let read = ContinuousClock.now

        // Copying the file into another database streams it too.
        let other = InMemoryDatabase()
        let copy = try await other.storeAsset(contentsOf: try asset.fileURL())
        #expect(copy == asset)

        let copied = ContinuousClock.now
        let peak = try #require(ProcessMemory.kibibytes("VmHWM"))
        let growthMiB = (peak - startResident) / 1024
        let seconds = { (duration: Duration) in String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) }
        // Holding the asset once would add its whole size; chunks are 1 MiB.
        print(
            "[reliability] assets.large: \(assetSize >> 20) MiB written in \(seconds(written - started)), read and checked in \(seconds(read - written)), copied in \(seconds(copied - read)); peak memory grew by \(growthMiB) MiB (limit 64 MiB)"
        )
        #expect(growthMiB < 64, "peak memory grew by \(growthMiB) MiB for a \(assetSize >> 20) MiB asset")
    }
}
