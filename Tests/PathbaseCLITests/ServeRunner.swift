import Foundation
import PathbaseTestSupport

/// A `pathbase serve` process (``ServeProcess``) on a free loopback port, with one account,
/// for the sync tests of this target (which runs the `pathbase` executable as a user would).
final class ServeRunner {

    let token: String
    private let server: ServeProcess

    /// Where it listens.
    var url: URL { server.url }

    /// Adds an account to `directory/server.sqlite` and starts the server on it.
    init(in directory: TemporaryDirectory) async throws {
        let added = try await CommandRunner.run(["accounts", "add", "tester", "--database", "server.sqlite"], in: directory)
        guard added.status == 0 else { throw Failure(message: "accounts add: \(added.errorOutput)") }
        token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        server = try await ServeProcess(database: directory.file("server.sqlite"))
    }

    /// SIGTERM, then waits; the exit status.
    func stop() -> Int32 { server.stop() }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
