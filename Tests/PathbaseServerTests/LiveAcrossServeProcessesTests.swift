import Foundation
import Pathbase
import PathbaseLiveSync
import PathbaseTestSupport
import Testing

/// Live push between two real `pathbase serve` processes on one PostgreSQL database: what
/// carries a push made through one process to the WebSocket clients of the other is the
/// store's cross-process notice (LISTEN/NOTIFY), nothing in memory.
@Suite("Live push across two pathbase serve processes on one PostgreSQL database")
struct LiveAcrossServeProcessesTests {

    private func path(_ instance: Int) -> Path { Path(model: 6, instance: instance, property: 1) }

    /// Waits until `condition` holds, failing after `within`.
    private func eventually(within: Duration = .seconds(60), _ what: String, _ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + within
        while await !condition() {
            guard clock.now < deadline else { throw HTTPTestFailure("\(what): not within \(within)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How many connections other than this one are listening on the database (PostgreSQL
    /// shows a connection's last statement; the listening one sends nothing after LISTEN).
    private func listeners(on url: String) async -> Int64 {
        let sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'"
        return (try? await TestPostgres.query(sql, on: url).first) ?? -1
    }

    @Test("a replica live on server A hears, without polling, each record pushed through server B")
    func pushThroughOneHeardOnTheOther() async throws {
        let url = try await TestPostgres.newDatabase()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--postgres", url])
        try #require(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await ServeProcess(store: ["--postgres", url])
        defer { first.kill() }
        let second = try await ServeProcess(store: ["--postgres", url])
        defer { second.kill() }
        // Both processes listen before anything is pushed: a server that connects its
        // listener late publishes the latest cursor then, which would hide a missing notice.
        try await eventually("both servers listening on PostgreSQL") { await listeners(on: url) >= 2 }

        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: first.url, token: token))
        // No interval: only the live line makes it pull.
        let sync = AutomaticSync(replica: replica, interval: nil, debounce: .zero, live: WebSocketLiveUpdates(server: first.url, token: token))
        defer { sync.stop() }
        try await eventually("the live line to the first server is up") { sync.isLive }

        for (instance, value) in [(1, "one through the second"), (2, "two through the second")] {
            let writer = InMemoryHistoryDatabase()
            let pusher = try Replica(database: writer, transport: HTTPSyncTransport(server: second.url, token: token))
            writer.set(value, for: path(instance))
            let report = try await pusher.sync()
            #expect(report.acknowledged == 1, "\(report)")
            try await eventually("'\(value)' pushed through the second server reaching the replica live on the first") {
                database.get(path(instance)) == value
            }
        }
        #expect(first.isRunning && second.isRunning)
    }
}
