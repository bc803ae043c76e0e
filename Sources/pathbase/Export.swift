import ArgumentParser
import Foundation
import Pathbase
import PathbaseSQLite

/// `pathbase export FILE --out OUT`: every record of a file as a versioned JSON document.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every record of a Pathbase file (or those after a time) to a JSON export.",
        discussion:
            "The export keeps each record's path, timestamp and exact value type; `pathbase import` or `importRecords(from:)` rebuild the same state in any database. Lists the Codable collections exported, by name with their fields. A synced file's replica bookkeeping (its sync identity, outbox and pull cursor) is left out: a file imported from the export is a new replica, which pushes the imported records the server lacks under its own identity. Reads the file only. Shows progress on a terminal."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    @Option(help: "Where to write the export.")
    var out: String

    @Option(help: "Only records after this time (ISO 8601, for example 2026-11-21T10:00:00Z).")
    var after: String?

    func run() throws {
        var cursor: Timestamp?
        if let after {
            guard let date = ISO8601DateFormatter().date(from: after) else {
                throw CommandFailure("'\(after)' is not an ISO 8601 time such as 2026-11-21T10:00:00Z")
            }
            cursor = Timestamp(latestAt: date)
        }
        let failures = FailureLog()
        let database = try ExistingFile.openForReading(file, failures: failures)
        defer { database.close() }
        // A synced file's replica bookkeeping stays out: the copy an import makes is a
        // replica of its own (see RecordArchive.exportable).
        let records = RecordArchive.exportable(database.records(after: cursor))
        let collections = CollectionListing.lines(of: database)
        try failures.check()
        let progress = TerminalProgress("Exporting", total: records.count)
        let data = try RecordArchive.encode(records, progress: progress.update)
        progress.finish()
        try data.write(to: URL(fileURLWithPath: out), options: .atomic)
        print("Exported \(records.count) records from \(file) to \(out).")
        for line in collections { print(line) }
    }
}

/// `pathbase import FILE IN`: adds an export's records to a file.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add the records of a JSON export to a Pathbase file (created if missing).",
        discussion:
            "Records keep their timestamps, so the newest value of each path wins and importing twice changes nothing. A damaged export, or one with a record outside the exchange contract (such as a negative model id), is rejected before anything is written. Lists the Codable collections the file then holds, by name with their fields. Shows progress on a terminal."
    )

    @Argument(help: "The Pathbase SQLite file to import into.")
    var file: String

    @Argument(help: "The export to read.")
    var input: String

    func run() throws {
        guard FileManager.default.fileExists(atPath: input) else {
            throw CommandFailure("\(input): no such file")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        // Decoded once, and checked whole before the database file is opened or created.
        let records = try RecordArchive.decode(data)
        let failures = FailureLog()
        let database = try ExistingFile.openForWriting(file, failures: failures)
        defer { database.close() }
        let progress = TerminalProgress("Importing", total: records.count)
        try database.importRecords(records, progress: progress.update)
        progress.finish()
        let collections = CollectionListing.lines(of: database)
        try failures.check()
        print("Imported \(records.count) records from \(input) into \(file).")
        for line in collections { print(line) }
    }
}
