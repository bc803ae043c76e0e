import ArgumentParser
import Foundation

/// The `pathbase` command line tool.
@main
struct PathbaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathbase",
        abstract: "Work with Pathbase databases.",
        subcommands: [Demo.self, Inspect.self, History.self, Check.self, Export.self, Import.self]
    )

    /// Parses the arguments and runs the command. A usage error is reported by the argument
    /// parser (with the usage); any failure of the command itself as one readable line on
    /// standard error, with exit code 1 (or the one the command chose).
    static func main() {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let exitCode as ExitCode {
            exit(withError: exitCode)
        } catch {
            StandardErrorLine.write("error: \(CommandFailure.readableMessage(of: error))")
            Foundation.exit(1)
        }
    }
}
