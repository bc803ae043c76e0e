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

    func validate() throws {
        switch (database, postgres) {
        case (nil, nil): throw ValidationError("Give the server's store: --database FILE or --postgres URL")
        case (.some, .some): throw ValidationError("Give either --database or --postgres, not both")
        default: break
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
        let store = try await PostgresSyncServerStore(url: postgres, logger: logger)
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
