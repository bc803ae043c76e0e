import Foundation

/// `curl` run by a test: what it printed, its exit status and its error message, so that a
/// failed request says why (a timeout, a refused connection, a TLS failure) instead of
/// looking like an empty answer.
///
/// ```swift
/// let answer = try Curl.run(["-H", "Authorization: Bearer \(token)", url + "/v1/health"])
/// #expect(answer.output == "ok", "\(answer)")
/// let status = try Curl.status(["-H", "Range: bytes=0-9", url + "/v1/assets/zz"])   // "401"
/// ```
///
/// The default time limit is generous: on two cores beside the whole parallel suite a
/// request over TLS can wait many seconds for a thread, and a test that proves something
/// about the answer must not fail because the answer was late.
public enum Curl {

    /// Where curl is installed.
    public static let path = "/usr/bin/curl"

    /// Whether curl is installed (tests that need it are enabled only then).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// What one curl run printed and how it ended.
    public struct Answer: Sendable, CustomStringConvertible {

        /// curl's exit status: 0 when the exchange completed (whatever the HTTP status), 28
        /// for a timeout, 7 for a refused connection, 35/60 for TLS failures.
        public let exitStatus: Int32

        /// What curl wrote to standard output: the body, or what `-w` asked for.
        public let output: String

        /// curl's error message (`-sS`: silent, but errors shown).
        public let errors: String

        public var description: String {
            "curl exit \(exitStatus), output \(output.prefix(500).debugDescription), errors \(errors.trimmingCharacters(in: .whitespacesAndNewlines).debugDescription)"
        }
    }

    /// Runs `curl -sS --max-time TIMEOUT ARGUMENTS` on a thread of its own and suspends
    /// until it ends: waiting blocks no thread of the cooperative pool, which an in-process
    /// server under test needs to answer.
    public static func run(_ arguments: [String], timeout: Int = 60) async throws -> Answer {
        let ended = try await ChildProcess.run(path, ["-sS", "--max-time", String(timeout)] + arguments, timeout: Double(timeout + 30))
        return Answer(exitStatus: ended.status, output: ended.output, errors: ended.errors)
    }

    /// Runs curl with `-o /dev/null -w %{http_code}`: its output is the HTTP status it
    /// received ("000" when there was none).
    public static func status(_ arguments: [String], timeout: Int = 60) async throws -> Answer {
        try await run(["-o", "/dev/null", "-w", "%{http_code}"] + arguments, timeout: timeout)
    }
}
