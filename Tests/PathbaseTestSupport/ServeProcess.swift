import Foundation

/// A `pathbase serve` child process on 127.0.0.1, from the `pathbase` executable built next
/// to the running binary: what the end-to-end tests and `pathbase-bench sync` run against.
///
/// ```swift
/// let token = try ServeProcess.run(["accounts", "add", "alice", "--database", file]).output
/// let serve = try ServeProcess(database: file)
/// print(serve.url)   // http://127.0.0.1:PORT
/// _ = serve.stop()   // SIGTERM, then waits
/// ```
///
/// With `--tls-certificate FILE --tls-key FILE` among the store options it listens on
/// `https://127.0.0.1:PORT`, and ``url`` says so.
///
/// Its output goes to a file in the temporary directory (removed by ``stop()`` and
/// ``kill()``), so that a full pipe never blocks it.
public final class ServeProcess: @unchecked Sendable {
    // @unchecked: Process is used from one task at a time; `kill` from another only ends it.

    /// The child process.
    public let process = Process()

    /// Where it listens: `http://127.0.0.1:PORT`, or `https://` when started with TLS.
    public let url: URL

    private let outputPath: String

    /// The `pathbase` executable next to the running binary, or `nil` when it was not built.
    public static var executable: URL? {
        [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("pathbase") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `pathbase ARGUMENTS` to its end and returns what it printed.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try requireExecutable()
        process.arguments = arguments
        let errorPath = temporaryPath("err")
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let errorText = try String(contentsOfFile: errorPath, encoding: .utf8)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), errorText)
    }

    /// Starts `pathbase serve --database FILE --port 0` (logging only warnings, plus
    /// `environment`) and waits (at most 60 s) for the line that says where it listens.
    public convenience init(database: String, environment: [String: String] = [:]) throws {
        try self.init(store: ["--database", database], environment: environment)
    }

    /// Starts `pathbase serve STORE --port 0` (`--database FILE` or `--postgres URL`) and
    /// waits (at most 60 s: a loaded machine may be slow to start it) for the line that says
    /// where it listens.
    public convenience init(store: [String], environment: [String: String] = [:]) throws {
        try self.init(arguments: ["serve"] + store + ["--port", "0"], environment: environment)
    }

    /// Starts `pathbase ARGUMENTS` — any command that prints "listening on http(s)://…",
    /// such as `studio FILE --port 0` — and waits (at most 60 s) for that line.
    public init(arguments: [String], environment: [String: String] = [:]) throws {
        outputPath = Self.temporaryPath("out")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.executableURL = try Self.requireExecutable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["LOG_LEVEL": "warning"].merging(environment) { $1 }) { $1 }
        // Standard error into the same file (one handle, one offset): a crash's message
        // shows in `output` and in a failure's description.
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") || $0.contains("listening on https://") }),
                let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }),
                let url = URL(string: String(address))
            {
                self.url = url
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputPath)
        throw ServeProcessError.didNotListen(output: text)
    }

    /// Everything the process printed.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether it runs, or how it ended and the last lines it printed: for a failure's
    /// description when requests to it failed.
    public var state: String {
        if process.isRunning { return "pid \(pid) running" }
        let how = process.terminationReason == .uncaughtSignal ? "killed by signal" : "exited with status"
        let tail = output.split(separator: "\n").suffix(20).joined(separator: "\n")
        return "pid \(pid) \(how) \(process.terminationStatus); its last output:\n\(tail)"
    }

    /// kill -9: no chance to finish anything. Waits (at most 10 s) until it is gone.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        waitForExit()
    }

    /// SIGTERM, then waits for it to exit; returns its exit status.
    public func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits until Foundation saw the process end, at most 10 s: `waitUntilExit()` can miss
    /// the exit of a child when other tests start processes at the same time, and wait forever.
    private func waitForExit() {
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    deinit {
        if process.isRunning { kill() }
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    private static func requireExecutable() throws -> URL {
        guard let executable else { throw ServeProcessError.notBuilt }
        return executable
    }

    private static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-serve-\(UUID().uuidString).\(suffix)").path
    }
}

/// Why a ``ServeProcess`` did not start.
public enum ServeProcessError: Error, LocalizedError {

    /// No `pathbase` executable next to the running binary.
    case notBuilt

    /// The process ended, or did not say where it listens within 60 s.
    case didNotListen(output: String)

    public var errorDescription: String? {
        switch self {
        case .notBuilt: "the pathbase executable was not built next to this binary (swift build --product pathbase)"
        case .didNotListen(let output): "pathbase serve did not say where it listens: \(output)"
        }
    }
}
