import Foundation
import Pathbase
import PathbaseServer
import Testing

@Suite("Metrics over HTTP: request counts, records, accounts and each replica's lag")
struct MetricsTests {

    private let metricsToken = "metrics-secret"

    private func metrics(_ url: URL, token: String?) async throws -> (exchange: RawExchange, report: MetricsReport?) {
        let exchange = try await RawExchange.send("GET", to: url, "v1/metrics", token: token, body: nil)
        return (exchange, exchange.status == 200 ? try JSONDecoder().decode(MetricsReport.self, from: exchange.body) : nil)
    }

    @Test("lag is the account's latest cursor minus where each of its replicas last pulled to", arguments: StoreKind.allCases)
    func lag(store: StoreKind) async throws {
        let server = SyncServer(store: try await store.make())
        let alice = try await server.addAccount(named: "alice")
        _ = try await server.addAccount(named: "bob")
        try await withHTTPServer(server, metricsToken: metricsToken) { url in
            let phone = InMemoryHistoryDatabase()
            let laptop = InMemoryHistoryDatabase()
            let phoneReplica = try Replica(database: phone, transport: HTTPSyncTransport(server: url, token: alice))
            let laptopReplica = try Replica(database: laptop, transport: HTTPSyncTransport(server: url, token: alice))
            for instance in 1 ... 3 { phone.set("v\(instance)", for: Path(model: 6, instance: instance, property: 1)) }
            try await phoneReplica.sync()
            try await laptopReplica.sync()
            // Two more records reach the server; only the laptop pulls them.
            for instance in 4 ... 5 { phone.set("v\(instance)", for: Path(model: 6, instance: instance, property: 1)) }
            try await phoneReplica.push()

            let before = try #require(try await metrics(url, token: metricsToken).report)
            #expect(before.accountCount == 2)
            #expect(before.recordsStored == 5)
            #expect(before.accounts.map(\.name) == ["alice", "bob"])
            #expect(before.accounts[0].latestCursor == 5)
            #expect(before.accounts[0].lag == 2)
            let replicas = Dictionary(uniqueKeysWithValues: before.accounts[0].replicas.map { ($0.replica, [$0.pulledCursor, $0.lag]) })
            #expect(replicas == [phoneReplica.id: [3, 2], laptopReplica.id: [3, 2]])
            let bob = before.accounts[1]
            #expect(bob.latestCursor == 0 && bob.lag == nil && bob.replicas.isEmpty, "\(bob)")

            try await laptopReplica.sync()
            try await phoneReplica.sync()
            let after = try #require(try await metrics(url, token: metricsToken).report)
            #expect(after.accounts[0].lag == 0)
            #expect(after.accounts[0].replicas.map(\.pulledCursor) == [5, 5])
        }
    }

    @Test("records stored counts what the store holds: fewer after a compaction, while the cursor stays", arguments: StoreKind.allCases)
    func recordsStoredAfterCompaction(store kind: StoreKind) async throws {
        let store = try await kind.make()
        let compacting = try #require(store as? any CompactingStore)
        let server = SyncServer(store: store)
        let alice = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, metricsToken: metricsToken) { url in
            let phone = InMemoryHistoryDatabase()
            let replica = try Replica(database: phone, transport: HTTPSyncTransport(server: url, token: alice))
            // Four versions of one title, one of another: compaction keeps the newest of each.
            let title = Path(model: 6, instance: 1, property: 1)
            for version in 1 ... 4 {
                phone.set("v\(version)", for: title)
                try await replica.push()
            }
            phone.set("other", for: Path(model: 6, instance: 2, property: 1))
            try await replica.push()

            let before = try #require(try await metrics(url, token: metricsToken).report)
            #expect(before.recordsStored == 5 && before.accounts[0].recordsStored == 5 && before.accounts[0].latestCursor == 5)
            let account = try #require(try await store.accountSummaries().first?.id)
            #expect(try await compacting.compact(account, through: 5) == 3)
            let after = try #require(try await metrics(url, token: metricsToken).report)
            #expect(after.recordsStored == 2, "\(after)")
            #expect(after.accounts[0].recordsStored == 2 && after.accounts[0].latestCursor == 5, "\(after.accounts)")
        }
    }

    @Test("requests are counted per route and status class; unknown paths count as other")
    func requestCounts() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, metricsToken: metricsToken) { url in
            let pull = try JSONEncoder().encode(PullRequest(after: 0, limit: 10))
            for _ in 0 ..< 3 { #expect(try await RawExchange.send(to: url, "v1/pull", token: token, body: pull).status == 200) }
            #expect(try await RawExchange.send(to: url, "v1/pull", token: "wrong", body: pull).status == 401)
            #expect(try await RawExchange.send(to: url, "v1/push", token: token, body: Data("{".utf8)).status == 400)
            #expect(try await RawExchange.send("GET", to: url, "v1/health", token: nil, body: nil).status == 200)
            #expect(try await RawExchange.send("GET", to: url, "no/such/\(UUID())", token: token, body: nil).status == 404)

            let report = try #require(try await metrics(url, token: metricsToken).report)
            #expect(report.requests["POST /v1/pull"] == ["2xx": 3, "4xx": 1])
            #expect(report.requests["POST /v1/push"] == ["4xx": 1])
            #expect(report.requests["GET /v1/health"] == ["2xx": 1])
            #expect(report.requests["other"] == ["4xx": 1])
            #expect(report.requests.count == 4, "the metrics request itself is counted once answered: \(report.requests)")
            let next = try #require(try await metrics(url, token: metricsToken).report)
            #expect(next.requests["GET /v1/metrics"] == ["2xx": 1])
        }
    }

    @Test("metrics need the server's metrics token, not an account's; without one they are disabled; health stays public")
    func access() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, metricsToken: metricsToken) { url in
            for wrong in [nil, token, metricsToken + "x"] {
                let (exchange, _) = try await metrics(url, token: wrong)
                #expect(exchange.status == 401, "\(wrong ?? "no token")")
                #expect(exchange.reason == "Metrics need the server's metrics token")
            }
            #expect(try await RawExchange.send("GET", to: url, "v1/health", token: nil, body: nil).status == 200)
        }
        try await withHTTPServer(server) { url in
            let (exchange, _) = try await metrics(url, token: metricsToken)
            #expect(exchange.status == 403)
            #expect(exchange.reason?.contains("Metrics are disabled") == true)
        }
    }

    @Test("replica ids come from clients, so only the most recently pulling replicas per account are kept")
    func boundedReplicas() {
        let activity = SyncServerActivity(maximumReplicasPerAccount: 2)
        let alice = AccountID(rawValue: 1)
        let bob = AccountID(rawValue: 2)
        activity.notePull(account: alice, replica: 1, cursor: 10)
        activity.notePull(account: alice, replica: 2, cursor: 20)
        activity.notePull(account: bob, replica: 9, cursor: 5)
        activity.notePull(account: alice, replica: 1, cursor: 11)
        activity.notePull(account: alice, replica: 3, cursor: 30)
        #expect(activity.pulledCursors(of: alice) == [1: 11, 3: 30])
        #expect(activity.pulledCursors(of: bob) == [9: 5])
    }

    @Test("counts from many threads at once add up")
    func concurrentCounting() {
        let activity = SyncServerActivity()
        let threads = 8
        let perThread = 2000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0 ..< perThread {
                activity.countRequest(route: "POST /v1/push", status: index % 2 == 0 ? 200 : 400)
                activity.notePull(account: AccountID(rawValue: 1), replica: UInt32(thread), cursor: Int64(index))
            }
        }
        #expect(activity.requestCounts == ["POST /v1/push": ["2xx": threads * perThread / 2, "4xx": threads * perThread / 2]])
        #expect(activity.pulledCursors(of: AccountID(rawValue: 1)) == Dictionary(uniqueKeysWithValues: (0 ..< threads).map { (UInt32($0), Int64(perThread - 1)) }))
    }
}
