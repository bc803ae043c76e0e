import Foundation
import Logging
@testable import PathbasePostgres
import PostgresNIO

/// The PostgreSQL the tests run on: the server named by `PATHBASE_POSTGRES_URL`, which
/// `scripts/postgres` (and so `scripts/test`) starts. Each test gets a database of its own.
///
/// Without the variable, or with a server that does not answer, the PostgreSQL tests fail
/// with ``TestPostgresError``: they are never skipped silently.
enum TestPostgres {

    /// The URL of the test server's main database.
    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["PATHBASE_POSTGRES_URL"], !url.isEmpty else {
                throw TestPostgresError.notConfigured
            }
            return url
        }
    }

    /// How long a test's store waits for PostgreSQL, its connection and migration included.
    /// Generous: while dozens of tests create databases at once on a loaded two-core
    /// machine, a migration took more than the stores' default 10 s in CI, and on
    /// 2026-12-03 every PostgreSQL test then running timed out at 60 s together, while
    /// tests held the cooperative pool's two threads in blocking waits for child processes
    /// (those waits now run on threads of their own: `onOwnThread`). The timeouts
    /// themselves are tested on their own (an unreachable server, a restart).
    static let storeTimeout: Double = 180

    /// A store on the database at `url`, with ``storeTimeout``.
    /// When it does not open in time, the error lists what every session of the server was
    /// doing then: a wait that long is a lock or a lost reply, and the list tells which.
    static func store(url: String) async throws -> PostgresSyncServerStore {
        do {
            return try await PostgresSyncServerStore(url: url, connectTimeout: storeTimeout, operationTimeout: storeTimeout)
        } catch PostgresStoreError.unreachable(let reason) {
            let sessions =
                (try? await rows(
                    """
                    SELECT concat_ws(' | ', datname, pid, state, wait_event_type, wait_event, now() - xact_start, left(query, 100))
                    FROM pg_stat_activity WHERE backend_type = 'client backend'
                    """, on: url, as: String.self)) ?? ["(the server's sessions could not be read)"]
            throw TestPostgresError.unreachable(url, "\(reason); the server's sessions: \(sessions.joined(separator: "; "))")
        }
    }

    /// The URL of a new, empty database on the test server.
    static func newDatabase() async throws -> String {
        let url = try url
        let name = "pathbase_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try await query("CREATE DATABASE \(name)", on: url)
        guard var components = URLComponents(string: url) else { throw TestPostgresError.unreachable(url, "the URL cannot be parsed") }
        components.path = "/" + name
        return components.string ?? url
    }

    /// Runs one statement on a database and returns its rows' first column as integers.
    static func query(_ sql: String, on url: String) async throws -> [Int64] {
        try await rows(sql, on: url, as: Int64.self)
    }

    /// Runs one statement on a database within ``storeTimeout`` and returns its rows' first
    /// column.
    static func rows<Value: PostgresDecodable & Sendable>(_ sql: String, on url: String, as type: Value.Type) async throws -> [Value] {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw TestPostgresError.unreachable(url, "the URL cannot be parsed")
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: String(components.path.dropFirst()), tls: .disable)
        configuration.options.connectTimeout = .seconds(Int64(storeTimeout))
        let logger = Logger(label: "pathbase.tests")
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw TestPostgresError.unreachable(url, String(reflecting: error))
        }
        do {
            let values = try await withDeadline(seconds: storeTimeout) {
                var values: [Value] = []
                for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Value.self) {
                    values.append(value)
                }
                return values
            }
            try await connection.close()
            return values
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Why the PostgreSQL tests cannot run.
enum TestPostgresError: Error, LocalizedError, CustomStringConvertible {
    case notConfigured
    case unreachable(String, String)

    var errorDescription: String? {
        switch self {
        case .notConfigured:
            "PATHBASE_POSTGRES_URL is not set: the PostgreSQL store tests need a server. Run them through scripts/test, or as `scripts/postgres swift test …`, which starts one"
        case .unreachable(let url, let reason):
            "The test PostgreSQL at \(url) does not answer (\(reason)); run the tests through scripts/postgres, which starts one"
        }
    }

    var description: String { errorDescription ?? "" }
}
