import ArgumentParser
import Foundation
import Pathbase
import PathbaseSQLite

/// Opens an existing Pathbase file for the commands that read one.
enum ExistingFile {

    /// Opens `path`, whatever its history setting; never creates a file.
    static func open(_ path: String) throws -> SQLiteDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MissingFile(path: path)
        }
        let quiet = SQLiteDatabase.Options(errorHandler: { error in
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        })
        do throws(SQLiteDatabaseError) {
            return try SQLiteDatabase(path: path, options: quiet)
        } catch .historyModeMismatch(_, let fileKeepsHistory) {
            var options = quiet
            options.keepsHistory = fileKeepsHistory
            return try SQLiteDatabase(path: path, options: options)
        }
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

/// The file a reading command was given does not exist.
struct MissingFile: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path): no such file" }
}
