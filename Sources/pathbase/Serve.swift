import ArgumentParser
import Foundation
import Logging
import PathbasePostgres
import PathbaseServer

/// `pathbase serve --database FILE --port N`: the sync server on an SQLite file, or on
/// PostgreSQL with `--postgres URL`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the sync server on an SQLite file (one file for all accounts) or on PostgreSQL.",
        discussion:
            "Prints where it listens, then serves push and pull for the accounts made with 'pathbase accounts add', until SIGTERM or SIGINT (a graceful shutdown). Listens on 127.0.0.1 unless --host says otherwise; across a network, serve HTTPS (--tls-certificate, --tls-key) or put a TLS terminator in front. With --postgres, several servers can share one database. GET /v1/metrics answers with the bearer token in the environment variable PATHBASE_METRICS_TOKEN (disabled without it)."
    )

    @OptionGroup var store: ServerStoreOptions

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "How far ahead of the server's clock a record's time may be, in seconds.")
    var maximumClockDrift: Double = 300

    @Option(help: "The model ids the server accepts records of, such as 1,2,10-19; any when not given.")
    var models: String?

    @Option(help: ArgumentHelp("A PEM certificate (chain) to serve HTTPS and WSS with; needs --tls-key.", valueName: "file"))
    var tlsCertificate: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-certificate.", valueName: "file"))
    var tlsKey: String?

    @Option(help: "Seconds a new connection may take to send its first request's headers (TLS handshake included).")
    var headerTimeout: Int = 20

    @Option(help: "Seconds a connection may stay silent between requests before it is closed.")
    var idleTimeout: Int = 60

    @Option(help: "The largest request head (request line and headers), in bytes.")
    var maximumHeaderSize: Int = 32 << 10

    @Option(help: "The most connections open at once.")
    var maximumConnections: Int = 4096

    @Option(help: "The most connections open at once from one IP address.")
    var maximumConnectionsPerAddress: Int = 256

    @Option(help: "The most requests of one account answered at once; more get 429 with Retry-After.")
    var maximumRequestsPerAccount: Int = 16

    @Option(help: "The deepest nesting of arrays and objects a JSON body may have.")
    var maximumJsonDepth: Int = 64

    @Option(help: "The largest encoded value of one record, in bytes.")
    var maximumValueSize: Int = 1 << 20

    @Option(name: .customLong("compact-every"), help: "Seconds between compactions of every account's log, as pathbase compact does; none when not given.")
    var compactEvery: Double?

    @OptionGroup var compaction: CompactionOptions

    func validate() throws {
        try store.validate()
        try compaction.validate()
        if let compactEvery, !(compactEvery > 0 && compactEvery <= 31_536_000) {
            throw ValidationError("--compact-every must be a number of seconds above 0 and at most a year")
        }
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maximumClockDrift >= 0 else { throw ValidationError("--maximum-clock-drift must not be negative") }
        _ = try knownModels()
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-certificate and --tls-key go together") }
        for (name, value) in [
            ("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--maximum-header-size", maximumHeaderSize), ("--maximum-connections", maximumConnections),
            ("--maximum-connections-per-address", maximumConnectionsPerAddress), ("--maximum-requests-per-account", maximumRequestsPerAccount),
            ("--maximum-json-depth", maximumJsonDepth), ("--maximum-value-size", maximumValueSize)
        ] {
            guard value >= 1 else { throw ValidationError("\(name) must be at least 1") }
        }
        guard headerTimeout <= 3600, idleTimeout <= 86400 else { throw ValidationError("--header-timeout is at most 3600 s, --idle-timeout at most 86400 s") }
    }

    /// The connection limits the options give.
    var connectionLimits: ConnectionLimits {
        ConnectionLimits(
            headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout), maximumHeaderSize: maximumHeaderSize,
            maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumConnectionsPerAddress)
    }

    /// The request limits the options give.
    var requestLimits: RequestLimits {
        RequestLimits(maximumDepth: maximumJsonDepth, maximumValueSize: maximumValueSize, maximumConcurrentRequestsPerAccount: maximumRequestsPerAccount)
    }

    /// The ids `--models` lists: numbers and ranges separated by commas.
    func knownModels() throws -> Set<Int>? {
        guard let models else { return nil }
        var known = Set<Int>()
        for part in models.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let low = bounds.first.flatMap({ Int($0) }), let high = bounds.count == 2 ? Int(bounds[1]) : low,
                low >= 0, low <= high, high - low < 1_000_000
            else {
                throw ValidationError("--models: '\(part)' is not a model id or a range such as 10-19")
            }
            known.formUnion(low ... high)
        }
        return known
    }

    func run() async throws {
        let knownModels = try knownModels()
        var logger = Logger(label: "pathbase.serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let host = self.host
        let description = store.description
        let tls = tlsCertificate.flatMap { certificate in tlsKey.map { SyncServerTLS(certificateFile: certificate, keyFile: $0) } }
        let connectionLimits = self.connectionLimits
        let requestLimits = self.requestLimits
        // From the environment, not an option: a command line is visible to every user.
        let metricsToken = ProcessInfo.processInfo.environment["PATHBASE_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let compactEvery = self.compactEvery
        let keepWhole = compaction.keepWhole
        let compactionLogger = logger
        try await store.withStore(logger: logger) { store in
            let server = SyncServer(store: store, maximumClockDrift: maximumClockDrift, maximumValueSize: requestLimits.maximumValueSize, knownModels: knownModels)
            let http = SyncHTTPServer(server: server, host: host, port: port, metricsToken: metricsToken, connectionLimits: connectionLimits, requestLimits: requestLimits, tls: tls, logger: logger)
            let scheme = tls == nil ? "http" : "https"
            let compacting = try compactEvery.map { _ in try CompactionOptions.compacting(store) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let compacting, let compactEvery {
                    group.addTask { await CompactionOptions.compactPeriodically(compacting, every: compactEvery, keepWhole: keepWhole, logger: compactionLogger) }
                }
                try await http.run { port in
                    // Tests and scripts read this line to find the port.
                    // Written unbuffered: a script or test reading it must see it now.
                    FileHandle.standardOutput.write(Data("pathbase serve: listening on \(scheme)://\(host):\(port) (\(description))\n".utf8))
                }
                // Stopped (SIGTERM, SIGINT): so is the compaction.
                group.cancelAll()
            }
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

    /// `pathbase accounts add NAME --database FILE` (or `--postgres URL`)
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and print its bearer token (shown only this once; the server keeps a hash)."
        )

        @Argument(help: "The account's name (1 to 100 characters, unique).")
        var name: String

        @OptionGroup var store: ServerStoreOptions

        func validate() throws { try store.validate() }

        func run() async throws {
            let name = self.name
            let token = try await store.withStore(logger: Logger(label: "pathbase.accounts")) { store in
                try await SyncServer(store: store).addAccount(named: name)
            }
            print(token)
        }
    }
}
