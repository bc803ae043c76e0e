import ArgumentParser
import Foundation
import Pathbase
import PathbaseSQLite

/// `pathbase sync FILE --server URL --token TOKEN`: one push and pull against `pathbase serve`.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Push a Pathbase file's pending records to a sync server and pull everyone else's, once.",
        discussion:
            "Prints what moved: records pushed, acknowledged, rejected and pulled, and the pull cursor. Exits with 1 when the server rejected records (each listed with its reason) or refused the request."
    )

    @Argument(help: "The Pathbase SQLite file (a replica; created when missing).")
    var file: String

    @Option(help: "The server's address, such as http://127.0.0.1:8080.")
    var server: String

    // Unconditional: a token is base64url, and one in 64 starts with '-', which would
    // otherwise be read as an option.
    @Option(parsing: .unconditional, help: "The account's bearer token (from 'pathbase accounts add').")
    var token: String

    func run() async throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--server must be an http:// or https:// address, not '\(server)'")
        }
        let failures = FailureLog()
        let database = try ExistingFile.openForWriting(file, failures: failures)
        defer { database.close() }
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
        let report = try await replica.sync()
        try failures.check()
        print("\(file): \(report)")
        let rejected = replica.rejectedRecords()
        guard rejected.isEmpty else {
            for entry in rejected { print("  \(entry)") }
            throw ExitCode.failure
        }
    }
}

/// `pathbase status FILE`: a replica's pending and rejected records, its last sync, last
/// error and initial-sync progress as of the last pull.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a replica's records not yet on the sync server, and those it rejected with its reasons.",
        discussion: "Also prints the last successful sync, the last sync error, and the records pulled of the server's total as of the last pull. Contacts no server."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "List at most this many pending records.")
    var limit: Int = 20

    func run() throws {
        let failures = FailureLog()
        guard FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file): no such file") }
        // Opened for writing: a file that never synced gets its replica id now.
        let database = try ExistingFile.openForWriting(file, failures: failures)
        defer { database.close() }
        let replica = try Replica(database: database, transport: Offline())
        let pending = replica.pendingRecords()
        let rejected = replica.rejectedRecords()
        try failures.check()
        print("\(file): replica \(replica.id), pull cursor \(replica.pullCursor)")
        let status = replica.status
        var pulled = "pulled: \(status.pulledCount)"
        if let total = status.serverTotal { pulled += " of \(total) (as of the last pull)" }
        pulled += status.isInitialSyncComplete ? ", initial sync complete" : ", initial sync not complete"
        print(pulled)
        print("last sync: \(status.lastSuccessfulSync.map { $0.formatted(.iso8601) } ?? "never")")
        print("last error: \(status.lastError ?? "none")")
        print("pending: \(pending.count)")
        for entry in pending.prefix(limit) { print("  \(entry.key)") }
        if pending.count > limit { print("  … \(pending.count - limit) more") }
        print("rejected: \(rejected.count)")
        for entry in rejected { print("  \(entry)") }
    }

    /// Status never talks to a server.
    private struct Offline: SyncTransport {
        struct NoServer: Error {}
        func push(_ request: PushRequest) async throws -> PushResponse { throw NoServer() }
        func pull(_ request: PullRequest) async throws -> PullResponse { throw NoServer() }
    }
}
