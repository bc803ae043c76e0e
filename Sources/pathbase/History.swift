import ArgumentParser
import Pathbase
import PathbaseSQLite

/// `pathbase history FILE --model M --instance I`: every record of one instance.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every record of one instance, oldest first, with its timestamp.",
        discussion:
            "Each line is a write: when (date, counter and replica of the timestamp), which property (by name when the file records the model's names, else by id; or the status) and the value written, as stored. Writes made concurrently on replicas that had not seen each other's end in \"(concurrent)\", and the one the property kept in \"(concurrent, kept)\". A file that keeps no history has only current values. Reads only: the file is never changed; a missing or empty file, or an instance that does not exist, is an error (exit code 1)."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "The model id.")
    var model: Int

    @Option(help: "The instance id.")
    var instance: Int

    func run() throws {
        let failures = FailureLog()
        let database = try ExistingFile.openForReading(file, failures: failures)
        defer { database.close() }
        let records = try database.records(model: model, instance: instance)
        guard !records.isEmpty else {
            throw CommandFailure("model \(model) has no instance \(instance) in \(file)")
        }
        let names = database.recordedNames(of: model)
        print("History of model \(names.label(of: model)), instance \(instance)\(database.keepsHistory ? "" : " (current values only: the file keeps no history)"):")
        let marks = ConcurrencyMarks(records, in: database)
        for record in records {
            let name = names.propertyName(record.path.property) ?? "property \(record.path.property)"
            print("\(record.timestamp)  \(name) = \(ExistingFile.describe(record.value))\(marks.mark(of: record))")
        }
        try failures.check()
    }
}
