import Foundation
import Pathbase
import PathbaseSQLite

/// The load `pathbase-bench sync` puts on one store behind one or more `pathbase serve`
/// processes, and the lines it prints (`PREFIX.push`, `PREFIX.pull`, `PREFIX.initial-1e6`).
///
/// Client *c* pushes through server *c mod n* and pulls through server *c + 1 mod n*: with
/// two servers on one database, every record is pulled through the server it was not pushed
/// to. A failed request (an error, or records not acknowledged) counts as an error and is
/// sent again, at most ``attempts`` times in all; the pull checks that every acknowledged
/// record came back (`lost`).
struct SyncLoad: Sendable {

    /// The line names' prefix: `sync` for SQLite, `sync.postgres` for PostgreSQL.
    let prefix: String

    /// Where the server processes listen.
    let servers: [URL]

    /// The accounts' tokens: one shared by all clients, or one per client.
    let tokens: [String]

    let clients: Int
    let recordsPerClient: Int
    let requestSize: Int

    /// How many times one request is sent before the client gives it up.
    static let attempts = 3

    /// What one client did: the latencies of its requests that succeeded (ms), its failed
    /// attempts, the first failure's description, and the keys the server acknowledged (a
    /// push) or returned (a pull).
    private struct ClientRun: Sendable {
        var latencies: [Double] = []
        var errors = 0
        var firstError: String?
        var keys: [SyncRecord.Key] = []

        /// Sends one request, again after a failure; the result, or `nil` when every attempt failed.
        mutating func send<Answer>(_ request: () async throws -> Answer) async -> Answer? {
            for _ in 0 ..< SyncLoad.attempts {
                do {
                    let (answer, milliseconds) = try await SyncLoad.timed(request)
                    latencies.append(milliseconds)
                    return answer
                } catch {
                    errors += 1
                    if firstError == nil { firstError = error.localizedDescription }
                }
            }
            return nil
        }
    }

    /// What all clients of one phase did, and its wall time.
    private struct PhaseRun {
        var clients: [ClientRun]
        var seconds: Double
        var latencies: [Double] { clients.flatMap(\.latencies) }
        var errors: Int { clients.reduce(0) { $0 + $1.errors } }
        var keys: [SyncRecord.Key] { clients.flatMap(\.keys) }
        var firstError: String? { clients.lazy.compactMap(\.firstError).first }
    }

    private var through: String {
        (servers.count == 1 ? "" : " through \(servers.count) servers") + accounts
    }

    private var accounts: String {
        tokens.count == 1 ? "" : ", each its own account"
    }

    /// Client `client`'s transport to server `server` (modulo their count).
    private func transport(for client: Int, through server: Int) -> HTTPSyncTransport {
        HTTPSyncTransport(server: servers[server % servers.count], token: tokens[client % tokens.count])
    }

    /// Pushes `recordsPerClient` new records from each client (each its own replica id), then
    /// pulls them back, each client its own stretch of the log; prints both lines. Throws
    /// when a request failed every attempt or an acknowledged record did not come back.
    /// Returns the push phase's throughput in requests per second (for the open-loop line).
    @discardableResult
    func pushAndPull() async throws -> Double {
        let push = try await Self.concurrently(clients: clients) { [self] client in
            var run = ClientRun()
            let transport = self.transport(for: client, through: client)
            let replica = UInt32(client + 1)
            for start in stride(from: 0, to: recordsPerClient, by: requestSize) {
                let records = try Self.makeRecords(replica: replica, first: client * recordsPerClient + start, count: min(requestSize, recordsPerClient - start))
                let response = await run.send {
                    let response = try await transport.push(PushRequest(replica: replica, records: records))
                    guard response.acknowledged.count == records.count else {
                        throw SyncBenchmarkFailure("a push acknowledged \(response.acknowledged.count) of \(records.count) records: \(response.rejected.first?.reason ?? "")")
                    }
                    return response
                }
                run.keys += response?.acknowledged ?? []
            }
            return run
        }
        let acknowledged = Set(push.keys)
        report("push", records: acknowledged.count, push, detail: "\(clients) clients × \(recordsPerClient) records\(through), \(requestSize) per request")

        // Each client its own stretch of the shared log (the store numbers an account's
        // records 1, 2, 3…), or its own account's log, so all pages are full; through the
        // other server when there are two.
        let total = acknowledged.count
        let shared = tokens.count == 1
        let pull = try await Self.concurrently(clients: clients) { [self] client in
            var run = ClientRun()
            let transport = self.transport(for: client, through: client + 1)
            var cursor = Int64(shared ? min(client * recordsPerClient, total) : 0)
            let end = Int64(shared ? min((client + 1) * recordsPerClient, total) : recordsPerClient)
            while cursor < end {
                let request = PullRequest(after: cursor, limit: min(requestSize, Int(end - cursor)), replica: UInt32(1000 + client))
                guard let page = await run.send({ try await transport.pull(request) }), !page.records.isEmpty else { break }
                run.keys += page.records.map(\.key)
                cursor = page.cursor
            }
            return run
        }
        let pulled = Set(pull.keys)
        let lost = acknowledged.subtracting(pulled).count
        report(
            "pull", records: pull.keys.count, pull,
            detail: "\(clients) clients × \(recordsPerClient) records\(accounts)\(servers.count == 1 ? "" : ", each through the server it was not pushed to"), pages of \(requestSize)", lost: lost)

        let unacknowledged = clients * recordsPerClient - acknowledged.count
        guard unacknowledged == 0, lost == 0, pull.keys.count == pulled.count else {
            throw SyncBenchmarkFailure(
                "\(prefix): \(unacknowledged) records never acknowledged, \(lost) acknowledged records not pulled, \(pull.keys.count - pulled.count) pulled twice; first error: \(push.firstError ?? pull.firstError ?? "none")"
            )
        }
        return Double(push.latencies.count) / push.seconds
    }

    /// Loads `count` records into the server through the first server (4 concurrent pushers
    /// of 1000-record requests), then pulls them all through the last into an empty replica
    /// on the SQLite file at `replicaFile`; prints the line.
    func initialSync(count: Int, load: HTTPSyncTransport, pull: HTTPSyncTransport, replicaFile: String) async throws {
        let loadRequest = 1000
        let pushers = 4
        let requests = (count + loadRequest - 1) / loadRequest
        let prefix = prefix
        let loaded = try await Self.concurrently(clients: pushers) { pusher in
            var run = ClientRun()
            for index in stride(from: pusher, to: requests, by: pushers) {
                let first = index * loadRequest
                let records = try Self.makeRecords(replica: UInt32(100 + pusher), first: first, count: min(loadRequest, count - first))
                let response = await run.send {
                    let response = try await load.push(PushRequest(replica: UInt32(100 + pusher), records: records))
                    guard response.acknowledged.count == records.count else { throw SyncBenchmarkFailure("loading: \(response.rejected.first?.reason ?? "records not acknowledged")") }
                    return response
                }
                guard response != nil else { throw SyncBenchmarkFailure("loading \(prefix): \(run.firstError ?? "")") }
            }
            return run
        }
        let replicaDatabase = try SQLiteDatabase(path: replicaFile)
        defer { replicaDatabase.close() }
        let replica = try Replica(database: replicaDatabase, transport: pull, pageSize: 1000)
        let start = ContinuousClock.now
        let pulled = try await replica.pull()
        let elapsed = Self.seconds(start.duration(to: .now))
        guard pulled.pulled == count, replica.pullCursor == Int64(count) else {
            throw SyncBenchmarkFailure("the replica pulled \(pulled.pulled) of \(count) records (cursor \(replica.pullCursor))")
        }
        let name = count == 1_000_000 ? "1e6" : String(count)
        let servers = self.servers.count == 1 ? "" : ", loaded through one server and pulled through the other"
        SyncBenchmark.line(
            "\(prefix).initial-\(name): \(String(format: "%.1f", elapsed)) s (\(count) records into an empty SQLite replica\(servers), \(Int(Double(count) / elapsed)) records/s; loading the server took \(String(format: "%.1f", loaded.seconds)) s, \(loaded.errors) errors)"
        )
    }

    /// `count` String records of consecutive instances, stamped now by `replica`.
    static func makeRecords(replica: UInt32, first: Int, count: Int) throws -> [SyncRecord] {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return try (first ..< first + count).map { instance in
            try SyncRecord(
                Record(path: Path(model: 7, instance: instance + 1, property: 1), timestamp: Timestamp(time: now, counter: UInt32(instance % 1_000_000), replica: replica), value: "value \(instance)"))
        }
    }

    /// Runs `clients` tasks at once.
    private static func concurrently(clients: Int, _ client: @escaping @Sendable (Int) async throws -> ClientRun) async throws -> PhaseRun {
        let start = ContinuousClock.now
        let runs = try await withThrowingTaskGroup(of: ClientRun.self) { group in
            for index in 0 ..< clients { group.addTask { try await client(index) } }
            var all: [ClientRun] = []
            for try await run in group { all.append(run) }
            return all
        }
        return PhaseRun(clients: runs, seconds: seconds(start.duration(to: .now)))
    }

    private static func timed<Answer>(_ body: () async throws -> Answer) async throws -> (Answer, Double) {
        let start = ContinuousClock.now
        let answer = try await body()
        return (answer, seconds(start.duration(to: .now)) * 1000)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `PREFIX.NAME: R records/s, p50 X ms, p99 Y ms, E errors[, L lost] (detail)`.
    private func report(_ name: String, records: Int, _ run: PhaseRun, detail: String, lost: Int? = nil) {
        let sorted = run.latencies.sorted()
        func percentile(_ p: Int) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * p / 100)] }
        let lostText = lost.map { ", \($0) lost" } ?? ""
        SyncBenchmark.line(
            "\(prefix).\(name): \(Int(Double(records) / run.seconds)) records/s, p50 \(String(format: "%.1f", percentile(50))) ms, p99 \(String(format: "%.1f", percentile(99))) ms, \(run.errors) errors\(lostText) (\(detail))"
        )
    }
}
