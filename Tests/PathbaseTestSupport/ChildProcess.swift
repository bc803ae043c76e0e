import Foundation

/// Runs a program to its end with posix_spawn and waitpid, its output in files: for tests
/// that start helper programs while other tests run. Foundation's `Process.waitUntilExit()`
/// can miss a child's exit when several tests start processes at once and then waits
/// forever; a child spawned here is reaped by its own pid, never by Foundation.
///
/// ```swift
/// let result = try ChildProcess.run("/usr/bin/env", ["true"])
/// print(result.status, result.output, result.errors)
/// ```
public enum ChildProcess {

    /// Runs `executable ARGUMENTS` with this process's environment and waits (at most
    /// `timeout` seconds, then kill -9) for its exit status and what it printed.
    public static func run(_ executable: String, _ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String, errors: String) {
        let base = NSTemporaryDirectory() + "pathbase-child-\(UUID().uuidString)"
        let outputPath = base + ".out", errorPath = base + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChildProcessError.cannotStart(executable, errno: spawned) }

        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw ChildProcessError.lost(executable) }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw ChildProcessError.timedOut(executable, seconds: timeout)
            }
            usleep(10_000)
        }
        // The exit code, or 128 + the signal that ended it, as a shell reports it.
        let signal = status & 0x7f
        let exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (exitStatus, output, errors)
    }
}

/// Why ``ChildProcess/run(_:_:timeout:)`` has no exit status.
public enum ChildProcessError: Error, LocalizedError {
    case cannotStart(String, errno: Int32)
    case lost(String)
    case timedOut(String, seconds: Double)

    public var errorDescription: String? {
        switch self {
        case .cannotStart(let executable, let code): "\(executable) cannot start: \(String(cString: strerror(code)))"
        case .lost(let executable): "\(executable) was reaped by someone else: its exit status is lost"
        case .timedOut(let executable, let seconds): "\(executable) did not end within \(seconds) s and was killed"
        }
    }
}
