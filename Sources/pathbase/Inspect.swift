import ArgumentParser
import Pathbase
import PathbaseSQLite

/// `pathbase inspect FILE`: the models of a database file and their instance counts, or
/// the current properties of one instance.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the models of a database file, or the current properties of one instance.",
        discussion:
            "Without --model and --instance, lists every model id with its numbers of created and deleted instances, then every Codable collection by name with its fields. With both, prints the instance's properties: id (or field name, for a collection), stored value and the timestamp of its write. Values are printed as stored, without knowing the model types. Reads only: the file is never changed; a missing or empty file, or an instance that does not exist, is an error (exit code 1)."
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
            let collection = database.collectionSummaries().first { $0.model == model }
            print("Model \(model)\(collection.map { " (collection \($0.name))" } ?? ""), instance \(instance):")
            print("property  value  (written at)")
            for record in records {
                let name = collection?.propertyName(record.path.property) ?? (record.path.isStatus ? "status" : "\(record.path.property)")
                print("\(name)  \(ExistingFile.describe(record.value))  (\(record.timestamp))")
            }
        } else {
            let summaries = try database.modelSummaries()
            print("\(file): \(database.keepsHistory ? "keeps history" : "current values only"), \(summaries.count) model\(summaries.count == 1 ? "" : "s")")
            guard !summaries.isEmpty else { return }
            print("model  created  deleted")
            for summary in summaries {
                print("\(summary.model)  \(summary.created)  \(summary.deleted)")
            }
            for line in CollectionListing.lines(of: database) { print(line) }
        }
        try failures.check()
    }
}
