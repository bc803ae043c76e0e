import ArgumentParser
import Foundation
import Logging
import PathbaseStudio

/// `pathbase studio FILE`: browse a database file and its past in a web browser, read-only.
struct Studio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Browse a database file, and its past, in a web browser (read-only).",
        discussion:
            "Prints the address to open, then serves until SIGINT or SIGTERM. Pages: the overview of models and collections, a table per model (filter, sort, pages of 100), each instance with every property's history, the whole database at any moment (the time control on every page), the changes between two moments, and the raw records. Never writes the file. Listens on 127.0.0.1 unless --host says otherwise; on any other address it prints a token that every request needs (in the printed address, then a cookie). Requests addressed (their Host header) to another name than this machine's are refused with 421, so that pages of other sites cannot read the file (DNS rebinding)."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 8090

    @Option(help: "The address to listen on; any other than loopback requires the printed token.")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("allowed-host"),
        help:
            "A further name that requests may be addressed to (their Host header), such as a proxy's; repeatable. Others than loopback names, --host and, off loopback, IP addresses and this machine's name are refused with 421."
    )
    var allowedHosts: [String] = []

    func validate() throws {
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        let failures = FailureLog()
        let database = try ExistingFile.openForReading(file, failures: failures)
        defer { database.close() }
        var logger = Logger(label: "pathbase.studio")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let studio = StudioServer(database: database, path: file, host: host, port: port, allowedHosts: allowedHosts, logger: logger)
        let file = self.file
        try await studio.run { address in
            // Tests and scripts read this line to find the port; unbuffered, so they see it now.
            FileHandle.standardOutput.write(Data("pathbase studio: \(file) (read-only), listening on \(address)\n".utf8))
        }
        print("pathbase studio: stopped")
    }
}
