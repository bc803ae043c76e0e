import Foundation
import GRDBSQLite
import Pathbase

/// An error of an ``SQLiteDatabase``: a file that can't be opened, or a failed SQLite call.
///
/// Opening throws it:
///
/// ```swift
/// do {
///     let database = try SQLiteDatabase(path: "notes.txt")
/// } catch let error as SQLiteDatabaseError {
///     print(error.localizedDescription) // "notes.txt is not an SQLite database."
/// }
/// ```
///
/// Every case reads as a sentence a user understands (`localizedDescription`,
/// `description`): "The disk is full …", "The database file is damaged; run `pathbase check
/// FILE` …", "The database is locked by another process …". A failed SQLite call keeps
/// SQLite's result code and message in ``sqlite(code:message:)`` (also ``sqliteCode``).
///
/// Opening never changes a file it rejects. After opening, the throwing operations
/// (``SQLiteDatabase/batch(_:)``, ``SQLiteDatabase/store(_:for:timestamp:)``,
/// ``SQLiteDatabase/fetch(_:at:)``) throw it, and the non-throwing `Database` methods hand
/// it to ``SQLiteDatabase/Options/errorHandler``.
public enum SQLiteDatabaseError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {

    /// The file is not an SQLite database (a text file, random bytes, another format).
    case notADatabase(path: String)

    /// The file is an SQLite database, but damaged: truncated, or with broken pages or tables.
    case corrupt(path: String, reason: String)

    /// The file was written by a newer version of Pathbase, with a storage format this
    /// version can't read.
    case newerFormat(path: String, found: Int, supported: Int)

    /// The file is an SQLite database that belongs to another application: it has tables,
    /// but not Pathbase's. Pathbase never writes into such a file.
    case notPathbase(path: String)

    /// The file was created with another ``SQLiteDatabase/Options/keepsHistory`` setting
    /// than the one asked for explicitly. A file keeps its setting for life, so its history
    /// has no gaps; leave the option `nil` to adopt the file's setting.
    case historyModeMismatch(path: String, fileKeepsHistory: Bool)

    /// The file can't be opened: it is missing and can't be created, is a directory, or
    /// lacks permissions.
    case cannotOpen(path: String, reason: String)

    /// A file opened with ``SQLiteDatabase/Options/readOnly`` holds no Pathbase database
    /// yet (it is missing or empty); a read-only open does not create one.
    case noDatabase(path: String)

    /// The database was closed with ``SQLiteDatabase/close()``.
    case closed

    /// A value could not be encoded for storage (for example a `Codable` type whose
    /// `encode(to:)` throws). Nothing was written.
    case valueEncoding(path: Path, reason: String)

    /// A call to SQLite failed, with SQLite's result code and message
    /// (for example 13, "database or disk is full").
    case sqlite(code: Int32, message: String)

    /// SQLite's result code, for a failed SQLite call (``sqlite(code:message:)``); `nil`
    /// for the other cases.
    public var sqliteCode: Int32? {
        if case .sqlite(let code, _) = self { return code }
        return nil
    }

    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not an SQLite database."
        case .corrupt(let path, let reason):
            return "\(path) is damaged (\(reason)); run `pathbase check \(path)` for details."
        case .newerFormat(let path, let found, let supported):
            return "\(path) was written by a newer Pathbase (format \(found)); this version reads up to format \(supported)."
        case .notPathbase(let path):
            return "\(path) is an SQLite database of another application, not a Pathbase database."
        case .historyModeMismatch(let path, let fileKeepsHistory):
            return "\(path) was created with keepsHistory: \(fileKeepsHistory); open it with that setting, or without the option to adopt it."
        case .cannotOpen(let path, let reason):
            return "Cannot open \(path): \(reason)."
        case .noDatabase(let path):
            return "\(path) holds no Pathbase database (missing or empty); nothing was created."
        case .closed:
            return "The database is closed; open it again to read or write."
        case .valueEncoding(let path, let reason):
            return "Cannot encode the value for \(path): \(reason). Nothing was written."
        case .sqlite(let code, let message):
            return "\(Self.explanation(of: code)) (SQLite error \(code): \(message))"
        }
    }

    /// What a failed SQLite call means to a user, by its primary result code.
    private static func explanation(of code: Int32) -> String {
        switch code & 0xFF {
        case SQLITE_FULL:
            return "The disk is full: the change was not stored."
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return "The database file is damaged; run `pathbase check FILE` for details."
        case SQLITE_BUSY, SQLITE_LOCKED:
            return "The database is locked by another process (or connection); the change was not stored, try again."
        case SQLITE_READONLY:
            return "The database can't be written: it was opened read-only, or the file or its folder is read-only."
        case SQLITE_IOERR:
            return "The disk could not be read or written."
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return "The database file can't be opened: check that it exists and may be read and written."
        case SQLITE_NOMEM:
            return "SQLite ran out of memory."
        case SQLITE_CONSTRAINT:
            return "The database refused the change: it breaks a rule of the file's tables."
        case SQLITE_MISUSE:
            return "The database was used in a way it does not allow."
        default:
            return "The database operation failed."
        }
    }
}
