import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Fault: a client offline while another pushed many records catches up through a real
/// `pathbase serve` process in pages, with bounded memory on both sides.
///
/// `PATHBASE_CATCHUP_RECORDS` sets the count (scripts/reliability: 100 000). Peak memory is
/// a process's: the bounds are checked when scripts/reliability runs the suite alone
/// (`PATHBASE_MEASURE_MEMORY=1`); the figures are printed always.
@Suite("Faults: a client offline for many records catches up in pages with bounded memory", .serialized)
struct CatchUpTests {

    static let measuresMemory = ProcessInfo.processInfo.environment["PATHBASE_MEASURE_MEMORY"] == "1"

    /// The server's largest page (`SyncServer`'s default, which `pathbase serve` keeps).
    static let serverPage = 1_000

    /// The most either process's peak memory may grow while the client catches up. Measured
    /// for 10^5 records: server +0–1 MiB, client +28–32 MiB (its SQLite file's caches, and the
    /// keys this test keeps to find repeats, ~5 MiB). Holding the 10^5 records at once would
    /// add their JSON body (~15 MiB) and decoded records and rows on top; one page of 1000
    /// takes about 1 MiB.
    static let memoryBoundMiB = 48

    @Test(
        "a fresh replica pulls every record pushed by another through a pathbase serve process: pages never exceed the server's maximum, each record arrives once, peak memory grows by a bounded amount",
        arguments: StoreKind.persistent)
    func catchUp(kind: StoreKind) async throws {
        // A positive count, or the test fails: 0 records would pass every check having done nothing.
        let count = try StressSettings.count("PATHBASE_CATCHUP_RECORDS", default: 5_000)
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }

        // One replica pushes everything; its file keeps the records out of memory.
        do {
            let writer = try SQLiteDatabase(path: ServerTestFiles.newPath())
            try writer.batch {
                for n in 0 ..< count {
                    writer.set(Self.value(n), for: Self.path(n))
                }
            }
            let pusher = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token), batchSize: 1_000)
            let pushed = try await pusher.push()
            #expect(pushed.acknowledged == count)
        }

        // The offline client: a fresh replica on a file, pulling pages of at most what it asks.
        let reader = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let transport = PageCountingTransport(base: HTTPSyncTransport(server: serve.url, token: token))
        let replica = try Replica(database: reader, transport: transport, pageSize: 5_000)
        let memory = MemoryWatch(server: serve.pid)
        let report = try await replica.pull()
        let peaks = try memory?.peaks()

        let pages = transport.pages
        #expect(report.pulled == count)
        #expect(pages.map(\.count).reduce(0, +) == count, "records received, with repeats")
        #expect(pages.allSatisfy { $0.count <= Self.serverPage }, "a page above the server's maximum: \(pages.map(\.count).max() ?? 0)")
        let fullPages = (count + Self.serverPage - 1) / Self.serverPage
        #expect(pages.count >= fullPages && pages.count <= fullPages + 1, "\(pages.count) pages")
        #expect(Set(pages.joined()).count == count, "every record once")
        #expect(replica.pullCursor == Int64(count))
        var wrong = 0
        for n in 0 ..< count where reader.get(Self.path(n)) != Self.value(n) { wrong += 1 }
        #expect(wrong == 0, "\(wrong) records missing or wrong on the client")

        let name = count == 100_000 ? "1e5" : "\(count)"
        let memoryFigures = MemoryWatch.figures(peaks)
        print("[reliability] sync.catch-up-\(name).\(kind): \(count) records, \(pages.count) pages (largest \(pages.map(\.count).max() ?? 0), server maximum \(Self.serverPage)), \(memoryFigures)")
        if Self.measuresMemory { MemoryWatch.expectGrowth(peaks, below: Self.memoryBoundMiB) }
    }

    private static func path(_ n: Int) -> Path {
        Path(model: 9, instance: n + 1, property: 1)
    }

    private static func value(_ n: Int) -> String {
        "record \(n) of a client that was offline"
    }
}

/// A transport that keeps the keys of every page it pulled.
private final class PageCountingTransport: SyncTransport, Sendable {
    let base: HTTPSyncTransport
    private let pulled = Locked<[[SyncRecord.Key]]>([])

    init(base: HTTPSyncTransport) { self.base = base }

    var pages: [[SyncRecord.Key]] { pulled.current }

    func push(_ request: PushRequest) async throws -> PushResponse { try await base.push(request) }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        let response = try await base.pull(request)
        pulled.withLock { $0.append(response.records.map(\.key)) }
        return response
    }
}
