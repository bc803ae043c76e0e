import ArgumentParser
import Foundation
import Pathbase
import PathbaseSQLite

/// `pathbase check FILE`: SQLite's integrity check and Pathbase's own, as a readable report.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a Pathbase file for damage: SQLite's integrity check, then every stored value's path and type.",
        discussion: "Prints 'ok' and exits with 0 when the file is sound; otherwise lists each problem and exits with 1. Reads only: the file is never changed."
    )

    @Argument(help: "The Pathbase SQLite file.")
    var file: String

    func run() throws {
        let failures = FailureLog()
        let problems: [IntegrityProblem]
        do {
            let database = try ExistingFile.openForReading(file, failures: failures)
            defer { database.close() }
            problems = try database.checkIntegrity()
            try failures.check()
        } catch let error as SQLiteDatabaseError {
            // A file too damaged to open or to scan is the check's finding, not a failure
            // to run it.
            print("\(file): damaged")
            print("  \(error.localizedDescription)")
            throw ExitCode.failure
        }
        guard !problems.isEmpty else {
            print("\(file): ok (SQLite integrity check and Pathbase's value check passed)")
            return
        }
        print("\(file): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
        for problem in problems {
            print("  \(problem)")
        }
        throw ExitCode.failure
    }
}
