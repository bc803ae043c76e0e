import ArgumentParser
import Foundation
import Pathbase
import PathbaseSQLite

/// Opens Pathbase files for the commands, and turns the failures that the database reports
/// to its error handler into a thrown error.
enum ExistingFile {

    /// Opens an existing file for reading only: never creates, upgrades or writes it.
    /// A missing or empty file throws with a readable message.
    static func openForReading(_ path: String, failures: FailureLog) throws -> SQLiteDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("\(path): no such file")
        }
        do throws(SQLiteDatabaseError) {
            return try SQLiteDatabase(path: path, options: .init(readOnly: true, errorHandler: failures.handler))
        } catch .noDatabase {
            throw CommandFailure("\(path) is empty: it holds no Pathbase database (left unchanged)")
        }
    }

    /// Opens a file for writing, creating it when missing, with the file's history setting.
    static func openForWriting(_ path: String, failures: FailureLog) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: path, options: .init(errorHandler: failures.handler))
    }

    /// A stored value as the CLI prints it: strings quoted, other values as Swift prints them.
    static func describe(_ value: any DatabaseValue) -> String {
        switch value {
        case let string as String: return String(reflecting: string)
        case let optional as String?: return optional.map { String(reflecting: $0) } ?? "nil"
        default: return "\(value)"
        }
    }
}

/// Collects what a database reports to its error handler (its non-throwing reads and
/// writes can't throw), so that a command fails with it instead of printing and going on.
final class FailureLog: Sendable {

    private let first = Locked<SQLiteDatabaseError?>(nil)

    var handler: @Sendable (SQLiteDatabaseError) -> Void {
        { [first] error in
            first.withLock { if $0 == nil { $0 = error } }
        }
    }

    /// Throws the first reported failure, if any.
    func check() throws {
        if let error = first.current { throw error }
    }
}
