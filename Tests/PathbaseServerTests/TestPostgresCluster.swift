import Foundation
import PathbaseTestSupport

/// A PostgreSQL server of one test's own, which it may stop and start (a restart mid-sync)
/// without disturbing the tests that share the main test server: made with
/// `scripts/postgres-cluster`, which `PATHBASE_POSTGRES_CLUSTER` names (set by
/// `scripts/postgres`). Without it the test fails with ``TestPostgresError``.
///
/// ```swift
/// let cluster = try TestPostgresCluster()
/// defer { cluster.remove() }
/// try cluster.stop(mode: "fast")
/// try cluster.start()      // the same port and data
/// ```
final class TestPostgresCluster: Sendable {

    /// `postgres://pathbase@127.0.0.1:PORT/pathbase`.
    let url: String

    private let script: String
    private let folder: String

    /// Creates and starts a server on a free port.
    init() throws {
        guard let script = ProcessInfo.processInfo.environment["PATHBASE_POSTGRES_CLUSTER"], !script.isEmpty else {
            throw TestPostgresError.notConfigured
        }
        self.script = script
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-cluster-\(UUID().uuidString)").path
        url = try Self.run(script, ["create", folder]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server (`pg_ctl stop -m MODE`) and waits until it is down.
    func stop(mode: String = "fast") throws {
        _ = try Self.run(script, ["stop", folder, mode])
    }

    /// Starts the stopped server again, on the same port and data, and waits until it answers.
    func start() throws {
        _ = try Self.run(script, ["start", folder])
    }

    /// Stops the server and deletes its folder.
    func remove() {
        _ = try? Self.run(script, ["remove", folder])
    }

    private static func run(_ script: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(script, arguments, timeout: 90)
        guard result.status == 0 else {
            throw TestPostgresError.unreachable(script + " " + arguments.joined(separator: " "), result.errors)
        }
        return result.output
    }
}
