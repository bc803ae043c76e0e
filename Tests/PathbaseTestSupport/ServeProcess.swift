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
public final class ServeProcess: Sendable {

    /// The child process.
    public let child: ChildProcess

    /// Where it listens: `http://127.0.0.1:PORT`, or `https://` when started with TLS.
    public let url: URL

    private let outputPath: String

    /// The `pathbase` executable next to the running binary, or `nil` when it was not built.
    public static var executable: URL? {
        [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("pathbase") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `pathbase ARGUMENTS` to its end (at most `timeout` seconds) and returns what it printed.
    public static func run(_ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String, errors: String) {
        try ChildProcess.run(try requireExecutable().path, arguments, timeout: timeout)
    }

    /// The same run from async code, holding no thread of the cooperative pool meanwhile.
    public static func run(_ arguments: [String], timeout: Double = 120) async throws -> (status: Int32, output: String, errors: String) {
        try await ChildProcess.run(try requireExecutable().path, arguments, timeout: timeout)
    }

    /// Starts `pathbase serve --database FILE --port 0` (logging only warnings, plus
    /// `environment`) and waits (at most 60 s) for the line that says where it listens.
    public convenience init(database: String, environment: [String: String] = [:]) throws {
        try self.init(store: ["--database", database], environment: environment)
    }

    /// The same start from async code, holding no thread of the cooperative pool meanwhile.
    public convenience init(database: String, environment: [String: String] = [:]) async throws {
        try await self.init(store: ["--database", database], environment: environment)
    }

    /// Starts `pathbase serve STORE --port 0` (`--database FILE` or `--postgres URL`) and
    /// waits (at most 60 s: a loaded machine may be slow to start it) for the line that says
    /// where it listens.
    public convenience init(store: [String], environment: [String: String] = [:]) throws {
        try self.init(arguments: ["serve"] + store + ["--port", "0"], environment: environment)
    }

    /// The same start from async code, holding no thread of the cooperative pool meanwhile.
    public convenience init(store: [String], environment: [String: String] = [:]) async throws {
        try await self.init(arguments: ["serve"] + store + ["--port", "0"], environment: environment)
    }

    /// Starts `pathbase ARGUMENTS` — any command that prints "listening on http(s)://…",
    /// such as `studio FILE --port 0` — and waits (at most 60 s) for that line.
    public convenience init(arguments: [String], environment: [String: String] = [:]) throws {
        self.init(try Self.launch(arguments, environment: environment))
    }

    /// The same start from async code: the wait runs on a thread of its own
    /// (``onOwnThread(_:)``), so that no thread of the cooperative pool is held meanwhile.
    public convenience init(arguments: [String], environment: [String: String] = [:]) async throws {
        self.init(try await onOwnThread { try Self.launch(arguments, environment: environment) })
    }

    private init(_ launched: Launched) {
        child = launched.child
        url = launched.url
        outputPath = launched.outputPath
    }

    /// A started process and where it said it listens.
    private struct Launched: Sendable {
        let child: ChildProcess
        let url: URL
        let outputPath: String
    }

    /// Starts the process and waits (at most 60 s) for its "listening on" line.
    private static func launch(_ arguments: [String], environment: [String: String]) throws -> Launched {
        let outputPath = temporaryPath("out")
        // Standard error into the same file (one handle, one offset): a crash's message
        // shows in `output` and in a failure's description.
        let child = try ChildProcess(
            try requireExecutable().path, arguments, environment: ["LOG_LEVEL": "warning"].merging(environment) { $1 },
            output: .file(outputPath), errors: .sameAsOutput)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") || $0.contains("listening on https://") }),
                let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }),
                let url = URL(string: String(address))
            {
                return Launched(child: child, url: url, outputPath: outputPath)
            }
            guard child.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        child.kill9()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputPath)
        throw ServeProcessError.didNotListen(output: text)
    }

    /// Everything the process printed.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The process id.
    public var pid: Int32 { child.pid }

    /// Whether it has not ended yet.
    public var isRunning: Bool { child.isRunning }

    /// Whether it runs, or how it ended and the last lines it printed: for a failure's
    /// description when requests to it failed.
    public var state: String {
        guard let status = child.exitStatus else { return "pid \(pid) running" }
        let how = child.endedBySignal == true ? "killed by signal \(status - 128)" : "exited with status \(status)"
        let tail = output.split(separator: "\n").suffix(20).joined(separator: "\n")
        return "pid \(pid) \(how); its last output:\n\(tail)"
    }

    /// kill -9: no chance to finish anything. Returns once it is gone.
    public func kill() {
        child.kill9()
    }

    /// SIGTERM, then waits (at most 60 s, then kill -9) for it to exit; returns its exit
    /// status (128 + the signal when one ended it).
    @discardableResult
    public func stop() -> Int32 {
        child.signal(SIGTERM)
        return (try? child.wait(timeout: 60)) ?? 128 + SIGKILL
    }

    /// The same stop from async code, holding no thread of the cooperative pool meanwhile.
    @discardableResult
    public func stop() async -> Int32 {
        child.signal(SIGTERM)
        return (try? await child.wait(timeout: 60)) ?? 128 + SIGKILL
    }

    deinit {
        child.kill9()
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
