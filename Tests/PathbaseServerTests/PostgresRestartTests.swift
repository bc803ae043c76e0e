import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// Fault: the PostgreSQL behind a `pathbase serve` process stops and starts again while
/// clients push and pull. The test runs a server of its own (``TestPostgresCluster``), so the
/// other PostgreSQL tests are not disturbed.
///
/// It runs in `scripts/reliability` (stage pg-restart, `PATHBASE_FAULT_TESTS=1`), alone in
/// its process: beside the whole suite on 2 cores its clients missed their deadline once.
@Suite("Faults: PostgreSQL restarted mid-sync", .enabled(if: ProcessInfo.processInfo.environment["PATHBASE_FAULT_TESTS"] == "1", "a fault test of scripts/reliability (PATHBASE_FAULT_TESTS=1)"))
struct PostgresRestartTests {

    /// How long the server waits for PostgreSQL before it answers 503.
    private static let storeTimeout = 1.0

    /// How long a client waits for an answer: well above the server's wait.
    private static let clientTimeout = 5.0

    @Test(
        "PostgreSQL stopped (pg_ctl stop -m fast) and started again while 4 clients push and pull through pathbase serve: the server answers 503 with a reason, within the client's timeout, while it is down; clients retry and finish; every record is stored once and reaches every replica once"
    )
    func restartMidSync() async throws {
        let cluster = try await onOwnThread { try TestPostgresCluster() }
        defer { cluster.remove() }
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--postgres", cluster.url])
        try #require(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(store: ["--postgres", cluster.url, "--postgres-timeout", "\(Self.storeTimeout)"])
        defer { serve.kill() }

        let progress = RestartProgress()
        let clients = 4
        let deadline = ContinuousClock.now + .seconds(180)
        let restart = Task {
            // Let every client sync a few rounds first.
            while await progress.rounds < clients * 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await onOwnThread { try cluster.stop(mode: "fast") }
            var answers: [(status: Int, reason: String?, seconds: Double)] = []
            for _ in 0 ..< 2 {
                let start = ContinuousClock.now
                let answer = try await RawExchange.send(to: serve.url, "v1/pull", token: token, body: try JSONEncoder().encode(PullRequest(after: 0, limit: 10)))
                answers.append((answer.status, answer.reason, Self.seconds(start.duration(to: .now))))
            }
            try await onOwnThread { try cluster.start() }
            await progress.restarted()
            return answers
        }

        let results = try await withThrowingTaskGroup(of: ClientResult.self) { group in
            for client in 0 ..< clients {
                group.addTask {
                    try await Self.runClient(client, clients: clients, serve: serve.url, token: token, progress: progress, deadline: deadline)
                }
            }
            var results: [ClientResult] = []
            for try await result in group { results.append(result) }
            return results
        }

        let answers = try await restart.value
        for answer in answers {
            #expect(answer.status == 503, "while PostgreSQL was down: \(answer)")
            #expect(answer.reason?.contains("retry") == true, "\(answer)")
            #expect(answer.seconds < Self.clientTimeout, "\(answer)")
        }
        let total = results.map(\.pushed).reduce(0, +)
        #expect(results.map(\.failedSyncs).reduce(0, +) > 0, "no client saw the restart")
        #expect(try await TestPostgres.query("SELECT count(*) FROM records", on: cluster.url) == [Int64(total)])
        #expect(try await TestPostgres.query("SELECT max(sequence) FROM records", on: cluster.url) == [Int64(total)])
        for result in results {
            #expect(result.records == total, "client \(result.client) holds \(result.records) of \(total) records")
            #expect(result.cursor == Int64(total), "client \(result.client)")
        }
        let slowest = answers.map(\.seconds).max() ?? 0
        print(
            "[reliability] sync.postgres-restart: \(total) records by \(clients) clients, \(results.map(\.failedSyncs).reduce(0, +)) failed syncs retried, answers while down \(answers.map { String($0.status) }.joined(separator: ", ")) within \(String(format: "%.1f", slowest)) s, records on the server \(total), on each replica \(results.map { String($0.records) }.joined(separator: "/"))"
        )
    }

    /// What one client did and holds at the end.
    private struct ClientResult: Sendable {
        var client: Int
        var pushed = 0
        var failedSyncs = 0
        /// The records its history holds under every client's paths, each counted once
        /// when it is the one expected value.
        var records = 0
        var cursor: Int64 = 0
    }

    /// Writes 10 records and syncs, round after round, until PostgreSQL has restarted and
    /// 3 more rounds went through; then, once every client is done, pulls the rest and checks
    /// what it holds.
    private static func runClient(_ client: Int, clients: Int, serve: URL, token: String, progress: RestartProgress, deadline: ContinuousClock.Instant) async throws -> ClientResult {
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: serve, token: token, timeout: clientTimeout), batchSize: 7, pageSize: 9)
        var result = ClientResult(client: client)
        var roundsAfterRestart = 0
        while roundsAfterRestart < 3 {
            for _ in 0 ..< 10 {
                database.set("\(client)-\(result.pushed)", for: path(client, result.pushed))
                result.pushed += 1
            }
            result.failedSyncs += try await syncRetrying(replica, deadline: deadline)
            await progress.round()
            if await progress.isRestarted { roundsAfterRestart += 1 }
            guard ContinuousClock.now < deadline else { throw HTTPTestFailure("client \(client) did not finish in time") }
        }
        await progress.finished(client, pushed: result.pushed)
        while await progress.finishedClients < clients {
            guard ContinuousClock.now < deadline else { throw HTTPTestFailure("client \(client) waited too long for the others") }
            try await Task.sleep(for: .milliseconds(20))
        }
        result.failedSyncs += try await syncRetrying(replica, deadline: deadline)
        for (other, pushed) in await progress.pushed {
            for n in 0 ..< pushed {
                let records = database.records(at: path(other, n))
                if records.count == 1, database.get(path(other, n)) == "\(other)-\(n)" { result.records += 1 }
            }
        }
        result.cursor = replica.pullCursor
        return result
    }

    /// Syncs until it succeeds, retrying what the server or the network failed; returns the
    /// number of failed attempts.
    private static func syncRetrying(_ replica: Replica, deadline: ContinuousClock.Instant) async throws -> Int {
        var failures = 0
        while true {
            do {
                try await replica.sync()
                return failures
            } catch let error as SyncTransportError where !error.isTransient {
                throw error
            } catch let error as ReplicaError {
                throw error
            } catch {
                // A 5xx, a refused or broken connection, a timeout: retry.
                failures += 1
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    private static func path(_ client: Int, _ n: Int) -> Path {
        Path(model: 8, instance: client * 1_000_000 + n + 1, property: 1)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The clients' rounds and the restart, shared by the test's tasks.
private actor RestartProgress {
    private(set) var rounds = 0
    private(set) var isRestarted = false
    private(set) var pushed: [Int: Int] = [:]

    var finishedClients: Int { pushed.count }

    func round() { rounds += 1 }
    func restarted() { isRestarted = true }
    func finished(_ client: Int, pushed count: Int) { pushed[client] = count }
}
