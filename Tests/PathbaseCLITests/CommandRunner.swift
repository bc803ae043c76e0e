import Foundation

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
        let outputPath = directory.file("stdout-\(UUID().uuidString)")
        let errorPath = directory.file("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outputHandle.close()
        try errorHandle.close()
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        return CommandResult(
            status: process.terminationStatus,
            output: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self),
            errorOutput: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorPath)), as: UTF8.self)
        )
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
