import ArgumentParser
import Pathbase
import PathbaseSQLite

/// `pathbase history FILE --model M --instance I`: every record of one instance.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every record of one instance, oldest first, with its timestamp.",
        discussion: "Each line is a write: when (date, counter and replica of the timestamp), which property (or the status) and the value written, as stored. A file that keeps no history has only current values."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "The model id.")
    var model: Int

    @Option(help: "The instance id.")
    var instance: Int

    func run() throws {
        let database = try ExistingFile.open(file)
        defer { database.close() }
        let records = try database.records(model: model, instance: instance)
        guard !records.isEmpty else {
            print("Model \(model) has no instance \(instance) in \(file).")
            return
        }
        print("History of model \(model), instance \(instance)\(database.keepsHistory ? "" : " (current values only: the file keeps no history)"):")
        for record in records {
            let name = record.path.isStatus ? "status" : "property \(record.path.property)"
            print("\(record.timestamp)  \(name) = \(ExistingFile.describe(record.value))")
        }
    }
}
