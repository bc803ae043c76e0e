import Foundation
import Pathbase
import PathbaseTestSupport

/// `pathbase-bench sync [--postgres URL]`: real `pathbase serve` processes on loopback and
/// clients using `HTTPSyncTransport`, the replicas' own transport (the load: ``SyncLoad``).
///
/// - `sync.push`, `sync.pull`, `sync.initial-1e6`, `sync.initial-history`, `sync.server-rss`: one server on an
///   SQLite file in a temporary directory; 50 clients × 1000 records.
/// - With `--postgres URL`: the same SQLite lines with 100 clients × 1000 records, then
///   `sync.postgres.push`, `sync.postgres.pull`, `sync.postgres.initial-1e6` and
///   `sync.postgres.server-rss` with the same load against two servers on that database
///   (clients split between them; each record pulled through the server it was not pushed
///   to). Its accounts are new ones (named after the run), so a database used before works.
/// - `PREFIX.push.open-loop` after each push line: pushes sent at half its throughput, with
///   p50/p99/p99.9 from each request's scheduled send time (``SyncLoad/openLoopPush(requestsPerSecond:seconds:closedLoop:)``).
///
/// The server is the `pathbase` executable next to `pathbase-bench` (build both products
/// into the same place).
enum SyncBenchmark {

    static func run(postgres: String?) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-sync-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The issue's load (100 clients) when comparing with PostgreSQL; 50 otherwise, as the
        // SQLite lines were first published.
        // PATHBASE_BENCH_SYNC_CLIENTS=N changes it: with 1, latencies are a request's own time,
        // without queueing behind other clients.
        let clients =
            ProcessInfo.processInfo.environment["PATHBASE_BENCH_SYNC_CLIENTS"].flatMap { Int($0) }.map { max(1, $0) }
            ?? BenchScale.count(postgres == nil ? 50 : 100, smoke: 3)
        try await measure(
            prefix: "sync", store: ["--database", directory.appendingPathComponent("server.sqlite").path],
            servers: 1, clients: clients, directory: directory)
        if let postgres {
            try await measure(prefix: "sync.postgres", store: ["--postgres", postgres], servers: 2, clients: clients, directory: directory)
        }
    }

    /// Starts `servers` processes on `store`, creates two accounts, runs the load and prints
    /// its lines, then the servers' memory; stops the servers.
    /// `PATHBASE_BENCH_ONLY` skips the load or the initial sync when it names neither.
    private static func measure(prefix: String, store: [String], servers count: Int, clients: Int, directory: URL) async throws {
        let runsLoad = BenchScale.runs("\(prefix).push") || BenchScale.runs("\(prefix).pull")
        let runsInitial = BenchScale.runs("\(prefix).initial-1e6")
        let runsHistory = BenchScale.runs("\(prefix).initial-history")
        guard runsLoad || runsInitial || runsHistory else { return }
        // Names unique to the run: a PostgreSQL database may hold an earlier run's accounts.
        let run = "\(getpid())-\(Int(Date().timeIntervalSince1970))"
        // PATHBASE_BENCH_SYNC_ACCOUNTS=each gives every client its own account: appends
        // to one account are serialized, to different ones not.
        let accounts = ProcessInfo.processInfo.environment["PATHBASE_BENCH_SYNC_ACCOUNTS"] == "each" ? clients : 1
        let tokens = try (0 ..< accounts).map { try addAccount("bench-\(run)-\($0)", store) }
        let initialToken = try addAccount("initial-\(run)", store)
        let serves = try (0 ..< count).map { _ in try ServeProcess(store: store) }
        defer { for serve in serves { _ = serve.stop() } }

        let load = SyncLoad(
            prefix: prefix, servers: serves.map(\.url), tokens: tokens,
            clients: clients, recordsPerClient: BenchScale.count(1000, smoke: 20), requestSize: BenchScale.count(100, smoke: 10))
        do {
            if runsLoad {
                let closedLoop = try await load.pushAndPull()
                // Open loop at half the closed loop's throughput: 10 s, 1 s in the smoke run.
                if BenchScale.runs("\(prefix).push") {
                    try await load.openLoopPush(requestsPerSecond: closedLoop / 2, seconds: Double(BenchScale.count(10, smoke: 1)), closedLoop: closedLoop)
                }
            }
            if runsInitial {
                let initial = serves.map { HTTPSyncTransport(server: $0.url, token: initialToken, timeout: 300) }
                try await load.initialSync(
                    count: BenchScale.count(1_000_000, smoke: 2_000), load: initial[0], pull: initial[initial.count - 1],
                    replicaFile: directory.appendingPathComponent("\(prefix)-replica.sqlite").path)
            }
            if runsHistory {
                try await SyncInitialHistory.run(prefix: prefix, store: store, server: serves[0].url, run: run, directory: directory)
            }
        } catch {
            // Say whether the servers still run: a crashed server shows as reset connections.
            throw SyncBenchmarkFailure("\(error.localizedDescription)\nservers: \(serves.map(\.state).joined(separator: "; "))")
        }

        let memory = try serves.map { try residentMemory(of: $0.pid) }
        line("\(prefix).server-rss: \(memory.map { "\($0.current)" }.joined(separator: " MB, ")) MB (peak \(memory.map { "\($0.peak)" }.joined(separator: " MB, ")) MB)")
    }

    /// Creates an account with `pathbase accounts add NAME STORE`; its token.
    static func addAccount(_ name: String, _ store: [String]) throws -> String {
        let added = try ServeProcess.run(["accounts", "add", name] + store)
        guard added.status == 0 else { throw SyncBenchmarkFailure("pathbase accounts add failed: \(added.errors)") }
        return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
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
