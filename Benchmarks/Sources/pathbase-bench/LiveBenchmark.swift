import Foundation
import Pathbase
import PathbaseLiveSync
import PathbaseTestSupport

/// `pathbase-bench live`: the live WebSocket of a real `pathbase serve` process (SQLite).
///
/// - `live.idle-rss`: the server's resident memory with 1000 idle live connections, against
///   the same server before they connected (per connection: the difference / 1000).
/// - `live.notice`: from the start of a push of one record to its notice arriving, on the
///   first of the 1000 connections to hear it and on the last; 200 pushes, p50/p99.
enum LiveBenchmark {

    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-live-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverFile = directory.appendingPathComponent("server.sqlite").path
        let connections = BenchScale.count(1000, smoke: 10)
        let pushes = BenchScale.count(200, smoke: 5)

        let token = try SyncBenchmark.addAccount("live", ["--database", serverFile])
        let serve = try await ServeProcess(database: serverFile)
        defer { _ = serve.stop() }
        let transport = HTTPSyncTransport(server: serve.url, token: token)
        // One request first, so that the baseline includes a served request's allocations.
        _ = try await transport.pull(PullRequest(after: 0, limit: 1))
        let before = try SyncBenchmark.residentMemory(of: serve.pid)

        let heard = Heard(connections: connections)
        let live = WebSocketLiveUpdates(server: serve.url, token: token)
        let lines = (0 ..< connections).map { index in
            Task {
                try await live.listen(connected: { heard.connected() }, changed: { notice in heard.note(notice.cursor, on: index) })
            }
        }
        defer { for line in lines { line.cancel() } }
        try await heard.waitUntil(within: .seconds(60)) { $0.connectedCount == connections }
        try await Task.sleep(for: .seconds(1))
        let idle = try SyncBenchmark.residentMemory(of: serve.pid)
        let perConnection = Double(idle.current - before.current) * 1024 / Double(connections)
        SyncBenchmark.line("live.idle-rss: \(idle.current) MB with \(connections) idle connections (before \(before.current) MB, \(String(format: "%.0f", perConnection)) kB per connection)")

        var first: [Double] = []
        var last: [Double] = []
        for push in 1 ... pushes {
            let records = try SyncLoad.makeRecords(replica: 1, first: push, count: 1)
            let start = ContinuousClock.now
            heard.start(cursor: Int64(push), at: start)
            _ = try await transport.push(PushRequest(replica: 1, records: records))
            try await heard.waitUntil(within: .seconds(30)) { $0.heardCount == connections }
            let times = heard.times
            first.append(milliseconds(times.first))
            last.append(milliseconds(times.last))
        }
        SyncBenchmark.line(
            "live.notice: first heard p50 \(percentile(first, 50)) ms, p99 \(percentile(first, 99)) ms; all \(connections) heard p50 \(percentile(last, 50)) ms, p99 \(percentile(last, 99)) ms (\(pushes) pushes of one record)"
        )
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func percentile(_ values: [Double], _ p: Int) -> String {
        values.isEmpty ? "0" : String(format: "%.2f", Latencies(values).percentile(perMille: p * 10))
    }

    /// What the live connections have heard, shared with their callbacks.
    private final class Heard: @unchecked Sendable {
        // @unchecked: every stored property is only touched while holding `lock`.
        struct Snapshot {
            var connectedCount = 0
            var heardCount = 0
        }

        private let lock = NSLock()
        private let connections: Int
        private var snapshot = Snapshot()
        private var awaited: Int64 = 0
        private var start = ContinuousClock.now
        private var heardBy: Set<Int> = []
        private var firstAndLast: (first: Duration, last: Duration) = (.zero, .zero)

        init(connections: Int) { self.connections = connections }

        func connected() { lock.withLock { snapshot.connectedCount += 1 } }

        /// Starts timing the notice of `cursor`.
        func start(cursor: Int64, at start: ContinuousClock.Instant) {
            lock.withLock {
                awaited = cursor
                self.start = start
                heardBy = []
                snapshot.heardCount = 0
            }
        }

        func note(_ cursor: Int64, on connection: Int) {
            let now = ContinuousClock.now
            lock.withLock {
                guard cursor >= awaited, heardBy.insert(connection).inserted else { return }
                let elapsed = start.duration(to: now)
                if heardBy.count == 1 { firstAndLast.first = elapsed }
                firstAndLast.last = elapsed
                snapshot.heardCount = heardBy.count
            }
        }

        var times: (first: Duration, last: Duration) { lock.withLock { firstAndLast } }

        func waitUntil(within limit: Duration, _ condition: (Snapshot) -> Bool) async throws {
            let deadline = ContinuousClock.now + limit
            while !condition(lock.withLock { snapshot }) {
                guard ContinuousClock.now < deadline else {
                    throw SyncBenchmarkFailure("live connections: \(lock.withLock { snapshot }) after \(limit) of \(connections)")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }
}
