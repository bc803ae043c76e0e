import ArgumentParser
import Pathbase
import PathbaseSQLite

/// `pathbase inspect FILE`: the models of a database file and their instance counts, or
/// the current properties of one instance.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the models of a database file, or the current properties of one instance.",
        discussion:
            "Without --model and --instance, lists every model id (with the @Model type's name when the file records it) with its numbers of created and deleted instances, then every Codable collection by name with its fields. With both, prints the instance's properties: name (a collection's field, or the @Model property's name the file records; else the id), stored value and the timestamp of its write. Values are printed as stored, without knowing the model types. Reads only: the file is never changed; a missing or empty file, or an instance that does not exist, is an error (exit code 1)."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "The model id of the instance to show.")
    var model: Int?

    @Option(help: "The id of the instance to show.")
    var instance: Int?

    func validate() throws {
        guard (model == nil) == (instance == nil) else {
            throw ValidationError("--model and --instance go together")
        }
    }

    func run() throws {
        let failures = FailureLog()
        let database = try ExistingFile.openForReading(file, failures: failures)
        defer { database.close() }
        if let model, let instance {
            let records = try database.currentRecords(model: model, instance: instance)
            guard !records.isEmpty else {
                throw CommandFailure("model \(model) has no instance \(instance) in \(file)")
            }
            let names = database.recordedNames(of: model)
            print("Model \(names.label(of: model)), instance \(instance):")
            print("property  value  (written at)")
            for record in records {
                let name = names.propertyName(record.path.property) ?? "\(record.path.property)"
                print("\(name)  \(ExistingFile.describe(record.value))  (\(record.timestamp))")
            }
        } else {
            let summaries = try database.modelSummaries()
            print("\(file): \(database.keepsHistory ? "keeps history" : "current values only"), \(summaries.count) model\(summaries.count == 1 ? "" : "s")")
            guard !summaries.isEmpty else { return }
            print("model  created  deleted")
            for summary in summaries {
                let name = database.modelDescription(of: summary.model).map { " (\($0.name))" } ?? ""
                print("\(summary.model)\(name)  \(summary.created)  \(summary.deleted)")
            }
            for line in CollectionListing.lines(of: database) { print(line) }
        }
        try failures.check()
    }
}
