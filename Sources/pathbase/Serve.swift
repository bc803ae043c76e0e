import ArgumentParser
import Foundation
import Logging
import PathbaseServer

/// `pathbase serve --database FILE --port N`: the sync server on an SQLite file.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the sync server on an SQLite file (one file for all accounts).",
        discussion: "Prints where it listens, then serves push and pull for the accounts made with 'pathbase accounts add', until SIGTERM or SIGINT (a graceful shutdown). Listens on 127.0.0.1 unless --host says otherwise. GET /v1/metrics answers with the bearer token in the environment variable PATHBASE_METRICS_TOKEN (disabled without it)."
    )

    @Option(help: "The server's SQLite file; created when missing.")
    var database: String

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "How far ahead of the server's clock a record's time may be, in seconds.")
    var maximumClockDrift: Double = 300

    func validate() throws {
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maximumClockDrift >= 0 else { throw ValidationError("--maximum-clock-drift must not be negative") }
    }

    func run() async throws {
        let store = try SQLiteSyncServerStore(path: database)
        let server = SyncServer(store: store, maximumClockDrift: maximumClockDrift)
        var logger = Logger(label: "pathbase.serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let host = self.host
        let database = self.database
        // From the environment, not an option: a command line is visible to every user.
        let metricsToken = ProcessInfo.processInfo.environment["PATHBASE_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        try await SyncHTTPServer(server: server, host: host, port: port, metricsToken: metricsToken, logger: logger).run { port in
            // Tests and scripts read this line to find the port.
            // Written unbuffered: a script or test reading it must see it now.
            FileHandle.standardOutput.write(Data("pathbase serve: listening on http://\(host):\(port) (database \(database))\n".utf8))
        }
        print("pathbase serve: stopped")
    }
}

/// `pathbase accounts add NAME --database FILE`: accounts of the sync server.
struct Accounts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the sync server's accounts.",
        subcommands: [Add.self]
    )

    /// `pathbase accounts add NAME --database FILE`
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and print its bearer token (shown only this once; the server keeps a hash)."
        )

        @Argument(help: "The account's name (1 to 100 characters, unique).")
        var name: String

        @Option(help: "The server's SQLite file; created when missing.")
        var database: String

        func run() throws {
            let server = SyncServer(store: try SQLiteSyncServerStore(path: database))
            let token = try server.addAccount(named: name)
            print(token)
        }
    }
}
