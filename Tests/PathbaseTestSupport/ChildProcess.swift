import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with posix_spawn and reaped by its own pid with waitpid: every
/// program the tests and benchmarks start (`pathbase serve`, the crash writer, `sqlite3`).
///
/// Foundation's `Process.waitUntilExit()` can miss a child's exit when several tests start
/// processes at once and then waits forever; a child started here is never reaped by
/// Foundation, and every wait here has a deadline.
///
/// ```swift
/// let result = try ChildProcess.run("/usr/bin/env", ["true"])
/// print(result.status, result.output, result.errors)
///
/// let child = try ChildProcess("/usr/bin/sleep", ["60"])
/// child.signal(SIGTERM)
/// print(try child.wait(timeout: 10))   // 143: 128 + SIGTERM, as a shell reports it
/// ```
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the exit status is guarded by `lock`; the rest is immutable.

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// /dev/null.
        case null
        /// This process's own.
        case inherit
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose other end is ``input`` (standard input) or ``output`` (standard output).
        case pipe
        /// Standard error only: where standard output goes (one open file, one offset).
        case sameAsOutput
    }

    /// The process id.
    public let pid: pid_t

    /// The writing end of standard input, when it is ``Stream/pipe``.
    public let input: FileHandle?

    /// The reading end of standard output, when it is ``Stream/pipe``.
    public let output: FileHandle?

    private let executable: String
    private let lock = NSLock()
    private var rawStatus: Int32?

    /// Starts `executable ARGUMENTS` with this process's environment merged with
    /// `environment`, in `directory` (default: this process's), its streams as given.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
        input standardInput: Stream = .null, output standardOutput: Stream = .null, errors standardError: Stream = .null
    ) throws {
        self.executable = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Pipes are made close-on-exec under `spawning`, so that no other child started
        // meanwhile keeps an end open (a reader would then never see the end of the output).
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        var inputPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        if case .pipe = standardInput { try Self.makePipe(&inputPipe, for: executable) }
        if case .pipe = standardOutput { try Self.makePipe(&outputPipe, for: executable) }
        Self.route(standardInput, to: 0, pipeEnd: inputPipe[0], &actions)
        Self.route(standardOutput, to: 1, pipeEnd: outputPipe[1], &actions)
        Self.route(standardError, to: 2, pipeEnd: -1, &actions)

        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        // In another directory through the shell's cd (POSIX, on Linux and macOS):
        // posix_spawn's own chdir action is an extension Glibc's Swift module does not import.
        let command = directory.map { ["/bin/sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", $0, executable] } ?? [executable]
        let argv: [UnsafeMutablePointer<CChar>?] = (command + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        // The child's ends belong to the child alone.
        if inputPipe[0] >= 0 { close(inputPipe[0]) }
        if outputPipe[1] >= 0 { close(outputPipe[1]) }
        guard spawned == 0 else {
            if inputPipe[1] >= 0 { close(inputPipe[1]) }
            if outputPipe[0] >= 0 { close(outputPipe[0]) }
            throw ChildProcessError.cannotStart(executable, errno: spawned)
        }
        self.pid = pid
        input = inputPipe[1] >= 0 ? FileHandle(fileDescriptor: inputPipe[1], closeOnDealloc: true) : nil
        output = outputPipe[0] >= 0 ? FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true) : nil
    }

    /// Held while pipes are made and a child is spawned.
    private static let spawning = NSLock()

    private static func makePipe(_ ends: inout [Int32], for executable: String) throws {
        guard pipe(&ends) == 0 else { throw ChildProcessError.cannotStart(executable, errno: errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    }

    private static func route(_ stream: Stream, to descriptor: Int32, pipeEnd: Int32, _ actions: inout posix_spawn_file_actions_t) {
        switch stream {
        case .null: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        case .inherit: break
        case .file(let path): posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, pipeEnd, descriptor)
        case .sameAsOutput: posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
        }
    }

    /// Whether it has not ended yet (reaping it when it has).
    public var isRunning: Bool { reapedStatus() == nil }

    /// How it ended as a shell reports it: the exit code, or 128 + the signal that ended
    /// it; `nil` while it runs.
    public var exitStatus: Int32? {
        reapedStatus().map { status in
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
    }

    /// Whether a signal ended it; `nil` while it runs.
    public var endedBySignal: Bool? { reapedStatus().map { $0 & 0x7f != 0 } }

    /// Sends `signal` (SIGTERM, SIGKILL, …) unless it has ended.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits at most `timeout` seconds for its end, then kills it (kill -9) and throws;
    /// returns ``exitStatus``.
    @discardableResult
    public func wait(timeout: Double) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = exitStatus { return status }
            if Date() > deadline {
                kill(pid, SIGKILL)
                while isRunning { usleep(1_000) }
                throw ChildProcessError.timedOut(executable, seconds: timeout)
            }
            usleep(5_000)
        }
    }

    /// The same wait from async code: on a thread of its own (``onOwnThread(_:)``), so that
    /// no thread of the cooperative pool is held meanwhile.
    @discardableResult
    public func wait(timeout: Double) async throws -> Int32 {
        try await onOwnThread { try self.wait(timeout: timeout) }
    }

    /// Sends SIGKILL and waits for its end (a killed process ends at once).
    public func kill9() {
        signal(SIGKILL)
        while isRunning { usleep(1_000) }
    }

    private func reapedStatus() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let rawStatus { return rawStatus }
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &status, WNOHANG) } while reaped < 0 && errno == EINTR
        if reaped == pid {
            rawStatus = status
        } else if reaped < 0 {
            // Reaped by someone else: its status is lost; report it as ended by SIGKILL.
            rawStatus = SIGKILL
        }
        return rawStatus
    }

    deinit {
        if rawStatus == nil { kill9() }
    }

    /// Runs `executable ARGUMENTS` to its end and returns its exit status (as
    /// ``exitStatus``) and what it printed on standard output and error; kills it after
    /// `timeout` seconds and throws.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, timeout: Double = 120
    ) throws -> (status: Int32, output: String, errors: String) {
        let base = NSTemporaryDirectory() + "pathbase-child-\(UUID().uuidString)"
        let outputPath = base + ".out", errorPath = base + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, output: .file(outputPath), errors: .file(errorPath))
        let status = try child.wait(timeout: timeout)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (status, output, errors)
    }

    /// The same run from async code: on a thread of its own (``onOwnThread(_:)``), so that
    /// no thread of the cooperative pool is held meanwhile.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, timeout: Double = 120
    ) async throws -> (status: Int32, output: String, errors: String) {
        try await onOwnThread { try run(executable, arguments, environment: environment, directory: directory, timeout: timeout) }
    }
}

/// Why a ``ChildProcess`` did not start or end.
public enum ChildProcessError: Error, LocalizedError {
    case cannotStart(String, errno: Int32)
    case timedOut(String, seconds: Double)

    public var errorDescription: String? {
        switch self {
        case .cannotStart(let executable, let code): "\(executable) cannot start: \(String(cString: strerror(code)))"
        case .timedOut(let executable, let seconds): "\(executable) did not end within \(seconds) s and was killed"
        }
    }
}
