import ArgumentParser
import Foundation

/// The `pathbase` command line tool.
@main
struct PathbaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathbase",
        abstract: "Work with Pathbase databases.",
        version: PathbaseCommand.version,
        subcommands: [Demo.self, Inspect.self, History.self, Check.self, Export.self, Import.self, Serve.self, Accounts.self, Compact.self, Sync.self, Status.self, Studio.self]
    )

    /// What `pathbase --version` prints.
    static let version = "0.1.0"

    /// Parses the arguments and runs the command. Help (`pathbase`, `--help`, `help X`),
    /// `--version` and usage errors are the argument parser's own: it prints them and exits
    /// with its code (0 for help, 64 for a usage error). Any failure of the command itself is
    /// one readable line on standard error, with exit code 1 (or the one the command chose).
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            Self.exit(withError: error)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            // A help request (`pathbase` alone, whose command has no `run`, or the parser's
            // own `help` subcommand, whose `run` throws it), an exit code or a validation
            // error: the parser's own message and code.
            if error is ExitCode || error is ValidationError || Self.exitCode(for: error) != .failure {
                Self.exit(withError: error)
            }
            StandardErrorLine.write("error: \(CommandFailure.readableMessage(of: error))")
            Foundation.exit(1)
        }
    }
}
