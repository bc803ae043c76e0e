import Foundation

/// A `pathbase serve` process on a free loopback port, with one account, for the sync tests
/// of this target (which runs the `pathbase` executable as a user would).
final class ServeRunner {

    let url: URL
    let token: String
    private let process = Process()
    private let outputPath: String

    /// Adds an account to `directory/server.sqlite`, starts the server on it and waits (at
    /// most 60 s) for the line that says where it listens.
    init(in directory: TemporaryDirectory) throws {
        let added = try CommandRunner.run(["accounts", "add", "tester", "--database", "server.sqlite"], in: directory)
        guard added.status == 0 else { throw Failure(message: "accounts add: \(added.errorOutput)") }
        token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let executable = CommandRunner.executable else { throw CommandRunner.NotBuilt() }
        outputPath = directory.file("serve-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.executableURL = executable
        process.arguments = ["serve", "--database", directory.file("server.sqlite"), "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["LOG_LEVEL": "warning"]) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try output.close()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let address = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first(where: { $0.hasPrefix("http://") }),
               let url = URL(string: String(address)) {
                self.url = url
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        process.waitUntilExit()
        throw Failure(message: "pathbase serve did not start: \((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")")
    }

    /// SIGTERM, then waits; the exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
