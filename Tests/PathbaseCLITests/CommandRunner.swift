import Foundation
import PathbaseTestSupport

/// What one run of the `pathbase` executable printed, and how it exited.
struct CommandResult {
    let status: Int32
    let output: String
    let errorOutput: String

    /// Standard error's lines, without the empty one after the last newline.
    var errorLines: [Substring] {
        errorOutput.split(separator: "\n", omittingEmptySubsequences: true)
    }
}

/// Runs the `pathbase` executable built next to the tests, as a user would from a shell
/// (standard output and error redirected to files, so neither is a terminal).
enum CommandRunner {

    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent()
        ]
        return
            candidates
            .map { $0.appendingPathComponent("pathbase") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) && !isDirectory($0) }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "the pathbase executable was not built next to the tests" }
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory) throws -> CommandResult {
        guard let executable else { throw NotBuilt() }
        let result = try ChildProcess.run(executable.path, arguments, environment: environment, directory: directory.path)
        return CommandResult(status: result.status, output: result.output, errorOutput: result.errors)
    }

    /// The same run from async code, holding no thread of the cooperative pool meanwhile.
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory) async throws -> CommandResult {
        guard let executable else { throw NotBuilt() }
        let result = try await ChildProcess.run(executable.path, arguments, environment: environment, directory: directory.path)
        return CommandResult(status: result.status, output: result.output, errorOutput: result.errors)
    }
}

/// A temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {

    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-cli-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String {
        path + "/" + name
    }

    /// The bytes of a file, to show a command left it unchanged.
    func contents(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: file(name)))
    }
}
