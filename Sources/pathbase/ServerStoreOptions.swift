import ArgumentParser
import Logging
import PathbasePostgres
import PathbaseServer

/// `--database FILE` or `--postgres URL`: the store `pathbase serve` and
/// `pathbase accounts` work on.
struct ServerStoreOptions: ParsableArguments {

    @Option(help: "The server's SQLite file; created when missing.")
    var database: String?

    @Option(help: "A PostgreSQL database instead of a file: postgres://user[:password]@host[:port]/database (tables created on start; several servers may share it).")
    var postgres: String?

    @Option(name: .customLong("postgres-timeout"), help: "With --postgres: how many seconds a request waits for PostgreSQL (while it restarts, say) before the server answers 503.")
    var postgresTimeout: Double = 10

    func validate() throws {
        switch (database, postgres) {
        case (nil, nil): throw ValidationError("Give the server's store: --database FILE or --postgres URL")
        case (.some, .some): throw ValidationError("Give either --database or --postgres, not both")
        default: break
        }
        guard postgresTimeout > 0, postgresTimeout.isFinite else {
            throw ValidationError("--postgres-timeout must be a positive number of seconds")
        }
    }

    /// What the startup line says the server runs on (a URL without its password).
    var description: String {
        if let postgres {
            let shown = (try? PostgresURL.redacted(postgres)) ?? "postgres"
            return "postgres \(shown)"
        }
        return "database \(database ?? "")"
    }

    /// Opens the store, runs `body` with it, and closes it, also when `body` throws.
    func withStore<Result: Sendable>(logger: Logger, _ body: (any SyncServerStore) async throws -> Result) async throws -> Result {
        guard let postgres else {
            return try await body(try SQLiteSyncServerStore(path: database ?? ""))
        }
        let store = try await PostgresSyncServerStore(url: postgres, operationTimeout: postgresTimeout, logger: logger)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}
