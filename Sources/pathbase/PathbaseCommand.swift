import ArgumentParser

/// The `pathbase` command line tool.
@main
struct PathbaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathbase",
        abstract: "Work with Pathbase databases.",
        subcommands: [Demo.self, Inspect.self, History.self, Export.self, Import.self]
    )
}
