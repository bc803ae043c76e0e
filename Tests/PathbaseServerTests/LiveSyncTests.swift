import Foundation
import HummingbirdWSClient
import Pathbase
import PathbaseLiveSync
import PathbasePostgres
import PathbaseServer
import PathbaseTestSupport
import Testing

@Suite("Live push: a WebSocket tells replicas of new records, across server processes, with polling as fallback")
struct LiveSyncTests {

    private let path = Path(model: 6, instance: 1, property: 1)

    /// A replica on a new database that keeps itself in sync with the server at `url`, told
    /// of new records only by the live line (no interval) unless `interval` is given.
    private func liveReplica(at url: URL, token: String, interval: Duration? = nil, retry: SyncRetryPolicy = .standard) throws -> (InMemoryHistoryDatabase, AutomaticSync) {
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
        let sync = AutomaticSync(replica: replica, interval: interval, debounce: .zero, retry: retry, live: WebSocketLiveUpdates(server: url, token: token))
        return (database, sync)
    }

    /// Writes `value` on a new replica and pushes it through the server at `url`.
    private func push(_ value: String, to url: URL, token: String) async throws {
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
        database.set(value, for: path)
        let report = try await replica.sync()
        #expect(report.acknowledged == 1)
    }

    /// Waits until `condition` holds, failing after `within` (generous: on a loaded two-core
    /// machine other tests may hold the cooperative pool for seconds).
    private func eventually(within: Duration = .seconds(60), _ what: String, _ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + within
        while await !condition() {
            guard clock.now < deadline else { throw HTTPTestFailure("\(what): not within \(within)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("a record pushed by one replica reaches a live one without polling", arguments: StoreKind.allCases)
    func noticeStartsPull(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let (database, sync) = try liveReplica(at: url, token: token)
            defer { sync.stop() }
            try await eventually("the live line is up") { sync.isLive }
            // The server subscribes before its first frame, which is what brings the line up.
            #expect(server.changes.subscriberCount == 1)

            try await push("from elsewhere", to: url, token: token)
            try await eventually("the record arrives") { database.get(path) == "from elsewhere" }
        }
    }

    @Test("two servers on one PostgreSQL database: a push to one is heard by the other's live clients")
    func acrossServerProcesses() async throws {
        let stores = try await StoreKind.postgres.makeShared(count: 2)
        let first = SyncServer(store: stores[0])
        let second = SyncServer(store: stores[1])
        let token = try await first.addAccount(named: "alice")
        try await withHTTPServer(first) { firstURL in
            try await withHTTPServer(second) { secondURL in
                let (database, sync) = try liveReplica(at: secondURL, token: token)
                defer { sync.stop() }
                try await eventually("the live line is up") { sync.isLive }

                try await push("through the first server", to: firstURL, token: token)
                try await eventually("the record arrives through the second server") { database.get(path) == "through the first server" }
            }
        }
    }

    @Test("a server whose LISTEN connection is killed listens again and tells its clients what they missed")
    func relistensAfterLostConnection() async throws {
        let database = try await TestPostgres.newDatabase()
        let first = SyncServer(store: try await TestPostgres.store(url: database))
        let second = SyncServer(store: try await TestPostgres.store(url: database))
        let token = try await first.addAccount(named: "alice")
        try await withHTTPServer(first) { firstURL in
            try await withHTTPServer(second) { secondURL in
                let (replica, sync) = try liveReplica(at: secondURL, token: token)
                defer { sync.stop() }
                try await eventually("the live line is up") { sync.isLive }
                let listening = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'"
                try await eventually("both servers listen") { (try? await TestPostgres.query(listening, on: database)) == [2] }

                // A database restart, as each server's held connection sees it.
                let killed = try await TestPostgres.query(
                    """
                    SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()) AS killed
                    """, on: database)
                #expect(killed == [2])
                try await push("while the second server was not listening", to: firstURL, token: token)
                try await eventually("the record arrives through the second server") { replica.get(path) == "while the second server was not listening" }
            }
        }
    }

    @Test("another account's records send no notice")
    func noticesStayInTheirAccount() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        let account = try #require(try await server.store.account(tokenHash: AccessToken.hash(alice)))
        let notices = server.changes.subscribe(account)
        try await withHTTPServer(server) { url in
            try await push("bob's", to: url, token: bob)
            try await push("alice's", to: url, token: alice)
        }
        var iterator = notices.makeAsyncIterator()
        // Only alice's push: her log's first record.
        #expect(await iterator.next() == 1)
    }

    @Test("without an upgrade: 401 for a wrong token, 426 for a right one, each with a reason")
    func refusals() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let wrong = try await RawExchange.send("GET", to: url, "v1/live", token: "wrong", body: nil)
            #expect(wrong.status == 401)
            #expect(wrong.reason?.isEmpty == false)
            let plain = try await RawExchange.send("GET", to: url, "v1/live", token: token, body: nil)
            #expect(plain.status == 426)
            #expect(plain.reason?.contains("WebSocket") == true)

            // The client's upgrade with a wrong token is refused: the line never comes up.
            let refused = WebSocketLiveUpdates(server: url, token: "wrong")
            await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) {
                try await refused.listen(connected: {}, changed: { _ in })
            }
            #expect(server.changes.subscriberCount == 0)
        }
    }

    @Test("a server address that is not http(s) or ws(s) is a typed error")
    func invalidAddress() throws {
        let url = try #require(URL(string: "ftp://127.0.0.1/"))
        #expect(throws: LiveUpdatesError.invalidServer(url)) { try WebSocketLiveUpdates(server: url, token: "t").webSocketURL }
        let https = try #require(URL(string: "https://sync.example.com/base"))
        #expect(try WebSocketLiveUpdates(server: https, token: "t").webSocketURL.absoluteString == "wss://sync.example.com/base/v1/live")
    }

    @Test("when the line drops, the interval polls until it is back")
    func fallsBackToPolling() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        // Reconnecting waits a minute: what arrives meanwhile comes by polling.
        let slowReconnect = SyncRetryPolicy(initialDelay: .seconds(60), maximumDelay: .seconds(60), jitter: 0)
        try await withHTTPServer(server) { url in
            let (database, sync) = try liveReplica(at: url, token: token, interval: .milliseconds(50), retry: slowReconnect)
            defer { sync.stop() }
            try await eventually("the live line is up") { sync.isLive }
            // The server closes its live connections; HTTP still answers.
            server.changes.disconnectAll()
            try await eventually("the line is seen down") { !sync.isLive }
            #expect(server.changes.subscriberCount == 0)

            try await push("while the line was down", to: url, token: token)
            try await eventually("the record arrives by polling") { database.get(path) == "while the line was down" }
            #expect(!sync.isLive)
        }
    }

    @Test("after a drop the line comes back by itself and notices flow again")
    func reconnects() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let quickReconnect = SyncRetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100))
        try await withHTTPServer(server) { url in
            let (database, sync) = try liveReplica(at: url, token: token, retry: quickReconnect)
            defer { sync.stop() }
            try await eventually("the live line is up") { server.changes.subscriberCount == 1 }
            server.changes.disconnectAll()
            // Alone it is back in a fraction of a second; under Thread Sanitizer beside the
            // other concurrency suites on two cores it once took over a minute.
            try await eventually(within: .seconds(300), "the line is back") { server.changes.subscriberCount == 1 && sync.isLive }

            // No interval: only a notice on the new line can bring it.
            try await push("after the reconnect", to: url, token: token)
            try await eventually("the record arrives") { database.get(path) == "after the reconnect" }
        }
    }
}
