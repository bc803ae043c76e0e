import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport

/// `pathbase-bench sync`: a real `pathbase serve` process on loopback (its SQLite store in a
/// temporary directory) and clients using `HTTPSyncTransport`, the replicas' own transport.
///
/// - `sync.push`: 50 concurrent clients push 1000 records each, in requests of 100;
///   records/s over the whole run, p50/p99 of one request's round trip.
/// - `sync.pull`: 50 concurrent clients pull 1000 records each (their own part of the log),
///   in pages of 100; the same figures.
/// - `sync.initial-1e6`: 10^6 records already on the server pulled by an empty replica on
///   an SQLite file (`Replica.pull()`, pages of 1000, each page stored with its cursor).
/// - `sync.server-rss`: the server's resident memory at the end, and its peak (from
///   `/proc/PID/status`; Linux only).
///
/// The server is the `pathbase` executable next to `pathbase-bench` (build both products
/// into the same place). Another store for the server (PostgreSQL, `--postgres URL`) only
/// changes how ``ServeProcess`` starts it.
enum SyncBenchmark {

    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-sync-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverFile = directory.appendingPathComponent("server.sqlite").path

        let clients = BenchScale.count(50, smoke: 3)
        let recordsPerClient = BenchScale.count(1000, smoke: 20)
        let requestSize = BenchScale.count(100, smoke: 10)
        let initialCount = BenchScale.count(1_000_000, smoke: 2_000)

        let token = try addAccount("bench", serverFile)
        let initialToken = try addAccount("initial", serverFile)
        let serve = try ServeProcess(database: serverFile)
        defer { _ = serve.stop() }
        let transport = HTTPSyncTransport(server: serve.url, token: token)

        // Push: each client its own replica id, so every record is new to the server.
        let push = try await timedConcurrently(clients: clients) { client in
            var latencies: [Double] = []
            for start in stride(from: 0, to: recordsPerClient, by: requestSize) {
                let records = try makeRecords(replica: UInt32(client + 1), first: client * recordsPerClient + start, count: min(requestSize, recordsPerClient - start))
                let (response, milliseconds) = try await timed { try await transport.push(PushRequest(replica: UInt32(client + 1), records: records)) }
                guard response.acknowledged.count == records.count else {
                    throw SyncBenchmarkFailure("a push acknowledged \(response.acknowledged.count) of \(records.count) records: \(response.rejected.first?.reason ?? "")")
                }
                latencies.append(milliseconds)
            }
            return latencies
        }
        report("sync.push", records: clients * recordsPerClient, push, detail: "\(clients) clients × \(recordsPerClient) records, \(requestSize) per request")

        // Pull: each client its own stretch of the log, so all pages are full.
        let pull = try await timedConcurrently(clients: clients) { client in
            var latencies: [Double] = []
            for start in stride(from: 0, to: recordsPerClient, by: requestSize) {
                let request = PullRequest(after: Int64(client * recordsPerClient + start), limit: requestSize, replica: UInt32(1000 + client))
                let (page, milliseconds) = try await timed { try await transport.pull(request) }
                guard page.records.count == min(requestSize, recordsPerClient - start) else {
                    throw SyncBenchmarkFailure("a pull after \(request.after) returned \(page.records.count) records")
                }
                latencies.append(milliseconds)
            }
            return latencies
        }
        report("sync.pull", records: clients * recordsPerClient, pull, detail: "\(clients) clients × \(recordsPerClient) records, pages of \(requestSize)")

        // Initial sync: load the server through four concurrent pushers of full requests,
        // then one empty replica on an SQLite file pulls everything.
        let loadRequest = 1000
        let pushers = 4
        let initialTransport = HTTPSyncTransport(server: serve.url, token: initialToken, timeout: 300)
        let requests = (initialCount + loadRequest - 1) / loadRequest
        let load = try await timedConcurrently(clients: pushers) { pusher in
            for index in stride(from: pusher, to: requests, by: pushers) {
                let first = index * loadRequest
                let records = try makeRecords(replica: UInt32(100 + pusher), first: first, count: min(loadRequest, initialCount - first))
                let response = try await initialTransport.push(PushRequest(replica: UInt32(100 + pusher), records: records))
                guard response.acknowledged.count == records.count else { throw SyncBenchmarkFailure("loading: \(response.rejected.first?.reason ?? "records not acknowledged")") }
            }
            return []
        }
        let replicaFile = directory.appendingPathComponent("replica.sqlite").path
        let replicaDatabase = try SQLiteDatabase(path: replicaFile)
        defer { replicaDatabase.close() }
        let replica = try Replica(database: replicaDatabase, transport: initialTransport, pageSize: 1000)
        let start = ContinuousClock.now
        let pulled = try await replica.pull()
        let elapsed = seconds(start.duration(to: .now))
        guard pulled.pulled == initialCount, replica.pullCursor == Int64(initialCount) else {
            throw SyncBenchmarkFailure("the replica pulled \(pulled.pulled) of \(initialCount) records (cursor \(replica.pullCursor))")
        }
        line("sync.initial-\(initialCount == 1_000_000 ? "1e6" : String(initialCount)): \(String(format: "%.1f", elapsed)) s (\(initialCount) records into an empty SQLite replica, \(Int(Double(initialCount) / elapsed)) records/s; loading the server took \(String(format: "%.1f", load.seconds)) s)")

        let memory = try residentMemory(of: serve.pid)
        line("sync.server-rss: \(memory.current) MB (peak \(memory.peak) MB)")
    }

    /// Creates an account in the server's file with `pathbase accounts add`; its token.
    static func addAccount(_ name: String, _ serverFile: String) throws -> String {
        let added = try ServeProcess.run(["accounts", "add", name, "--database", serverFile])
        guard added.status == 0 else { throw SyncBenchmarkFailure("pathbase accounts add failed: \(added.errors)") }
        return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `count` String records of consecutive instances, stamped now by `replica`.
    static func makeRecords(replica: UInt32, first: Int, count: Int) throws -> [SyncRecord] {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return try (first ..< first + count).map { instance in
            try SyncRecord(Record(path: Path(model: 7, instance: instance + 1, property: 1), timestamp: Timestamp(time: now, counter: UInt32(instance % 1_000_000), replica: replica), value: "value \(instance)"))
        }
    }

    /// What a concurrent run measured: every request's latency and the wall time.
    private struct Run {
        var latencies: [Double]
        var seconds: Double
    }

    /// Runs `clients` tasks at once; each returns its requests' latencies in milliseconds.
    private static func timedConcurrently(clients: Int, _ client: @escaping @Sendable (Int) async throws -> [Double]) async throws -> Run {
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for index in 0 ..< clients { group.addTask { try await client(index) } }
            var all: [Double] = []
            for try await latencies in group { all += latencies }
            return all
        }
        return Run(latencies: latencies, seconds: seconds(start.duration(to: .now)))
    }

    private static func timed<Result>(_ body: () async throws -> Result) async throws -> (Result, Double) {
        let start = ContinuousClock.now
        let result = try await body()
        return (result, seconds(start.duration(to: .now)) * 1000)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func report(_ name: String, records: Int, _ run: Run, detail: String) {
        let sorted = run.latencies.sorted()
        func percentile(_ p: Int) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * p / 100)] }
        line("\(name): \(Int(Double(records) / run.seconds)) records/s, p50 \(String(format: "%.1f", percentile(50))) ms, p99 \(String(format: "%.1f", percentile(99))) ms (\(detail))")
    }

    /// VmRSS and VmHWM of a process, in MB.
    static func residentMemory(of pid: Int32) throws -> (current: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func megabytes(_ field: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes / 1024
        }
        return (megabytes("VmRSS"), megabytes("VmHWM"))
    }

    /// Written unbuffered, so that progress shows when the output is piped.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// A sync benchmark step that did not do what it measures.
struct SyncBenchmarkFailure: Error, LocalizedError {
    let errorDescription: String?
    init(_ description: String) { errorDescription = description }
}
