import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport

/// `PREFIX.initial-history` (issue 49): a new replica's initial sync of an account whose
/// paths were each written 10 times, after `pathbase compact`, against the same paths written
/// once. Compaction leaves one record per path, so the ratio is the cost of what compaction
/// cannot remove (the gaps it leaves in the log); goal ≤ 1.5.
enum SyncInitialHistory {

    static func run(prefix: String, store: [String], server: URL, run: String, directory: URL) async throws {
        let name = "\(prefix).initial-history"
        guard BenchScale.runs(name) else { return }
        let paths = BenchScale.count(100_000, smoke: 500)
        let versions = 10
        let history = try SyncBenchmark.addAccount("history-\(run)", store)
        let current = try SyncBenchmark.addAccount("current-\(run)", store)
        try await load(paths: paths, versions: versions, through: HTTPSyncTransport(server: server, token: history, timeout: 300))
        try await load(paths: paths, versions: 1, through: HTTPSyncTransport(server: server, token: current, timeout: 300))
        let compacted = try await ServeProcess.run(["compact"] + store + ["--keep-whole", "0"])
        guard compacted.status == 0 else { throw SyncBenchmarkFailure("pathbase compact failed: \(compacted.errors)") }

        let measured = try await pull(paths: paths, token: history, server: server, file: directory.appendingPathComponent("\(name)-history.sqlite").path)
        let baseline = try await pull(paths: paths, token: current, server: server, file: directory.appendingPathComponent("\(name)-current.sqlite").path)
        report(name, Measurement(nanosecondsPerOperation: measured / Double(paths)), baseline: Measurement(nanosecondsPerOperation: baseline / Double(paths)), goal: 1.5)
    }

    /// Writes `versions` rounds of one String record per path, 1000 records a push.
    private static func load(paths: Int, versions: Int, through transport: HTTPSyncTransport) async throws {
        let start = Int64(Date().timeIntervalSince1970 * 1_000_000)
        for version in 0 ..< versions {
            for first in stride(from: 0, to: paths, by: 1000) {
                let records = try (first ..< min(paths, first + 1000)).map { instance in
                    try SyncRecord(
                        Record(
                            path: Path(model: 7, instance: instance + 1, property: 1),
                            timestamp: Timestamp(time: start + Int64(version), counter: UInt32(instance), replica: 100),
                            value: "value \(instance), version \(version)"))
                }
                let response = try await transport.push(PushRequest(replica: 100, records: records))
                guard response.acknowledged.count == records.count else {
                    throw SyncBenchmarkFailure("loading: \(response.rejected.first?.reason ?? "records not acknowledged")")
                }
            }
        }
    }

    /// Pulls the account into an empty SQLite replica; nanoseconds it took.
    private static func pull(paths: Int, token: String, server: URL, file: String) async throws -> Double {
        let database = try SQLiteDatabase(path: file)
        defer { database.close() }
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: server, token: token, timeout: 300), pageSize: 1000)
        let start = ContinuousClock.now
        let pulled = try await replica.pull()
        let elapsed = SyncLoad.seconds(start.duration(to: .now)) * 1e9
        guard pulled.pulled == paths else { throw SyncBenchmarkFailure("the replica pulled \(pulled.pulled) records of \(paths) paths") }
        return elapsed
    }
}
