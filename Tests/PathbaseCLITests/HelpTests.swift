import Foundation
import Testing

/// The tool's front door: help, the version, and usage errors, as the argument parser
/// prints them.
@Suite("pathbase help, version and usage errors")
struct HelpTests {

    /// A command of the tree the argument parser dumps (`--experimental-dump-help`).
    private struct DumpedCommand: Decodable {
        let commandName: String
        let subcommands: [DumpedCommand]?
    }

    private struct Dump: Decodable {
        let command: DumpedCommand
    }

    private struct DumpFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Every subcommand, as a user types it, read from the tool's own command tree: one
    /// added later is covered without a list here to forget (`help`, the parser's own, aside).
    private static func subcommands() throws -> [[String]] {
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.run(["--experimental-dump-help"], in: directory)
        guard result.status == 0 else { throw DumpFailure(description: "pathbase --experimental-dump-help: \(result.status) \(result.errorOutput)") }
        let dump = try JSONDecoder().decode(Dump.self, from: Data(result.output.utf8))
        func walk(_ command: DumpedCommand, _ prefix: [String]) -> [[String]] {
            (command.subcommands ?? []).filter { $0.commandName != "help" }.flatMap { [prefix + [$0.commandName]] + walk($0, prefix + [$0.commandName]) }
        }
        return walk(dump.command, [])
    }

    /// Help is the usage on standard output, nothing on standard error, and exit code 0.
    private func expectHelp(_ arguments: [String], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.run(arguments, in: directory)
        #expect(result.status == 0, "pathbase \(arguments.joined(separator: " ")): \(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.output.contains("USAGE: pathbase"), "\(result.output)", sourceLocation: sourceLocation)
        #expect(result.output.contains(text), "\(result.output)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(!result.output.contains("CommandError"), sourceLocation: sourceLocation)
    }

    @Test("pathbase alone, --help, -h and help print the usage with the subcommands and exit 0")
    func rootHelp() throws {
        for arguments in [[], ["--help"], ["-h"], ["help"]] {
            try expectHelp(arguments, mentioning: "SUBCOMMANDS")
        }
    }

    @Test("pathbase X --help and pathbase help X print X's usage and exit 0, for every subcommand")
    func subcommandHelp() throws {
        let subcommands = try Self.subcommands()
        // The tree as this test was written against: a parse that finds less fails here.
        let known: [[String]] = [["demo"], ["serve"], ["accounts"], ["accounts", "add"], ["sync"], ["studio"]]
        #expect(known.allSatisfy(subcommands.contains), "the command tree read: \(subcommands)")
        #expect(subcommands.count >= 13, "the command tree read: \(subcommands)")
        for subcommand in subcommands {
            let usage = "USAGE: pathbase \(subcommand.joined(separator: " "))"
            try expectHelp(subcommand + ["--help"], mentioning: usage)
            try expectHelp(["help"] + subcommand, mentioning: usage)
        }
    }

    @Test("--version prints the version and exits 0")
    func version() throws {
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.run(["--version"], in: directory)
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(result.output)")
        #expect(result.errorOutput.isEmpty)
    }

    @Test("An unknown subcommand or option prints one usage error and exits 64")
    func usageErrors() throws {
        for arguments in [["frobnicate"], ["--frobnicate"], ["demo", "--frobnicate"], ["sync", "--frobnicate"], ["accounts", "remove"]] {
            let directory = try TemporaryDirectory()
            let result = try CommandRunner.run(arguments, in: directory)
            #expect(result.status == 64, "pathbase \(arguments.joined(separator: " ")): \(result.status)")
            #expect(result.errorLines.filter { $0.hasPrefix("Error:") }.count == 1, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("Usage: pathbase"), "\(result.errorOutput)")
            #expect(result.output.isEmpty, "\(result.output)")
        }
    }
}
