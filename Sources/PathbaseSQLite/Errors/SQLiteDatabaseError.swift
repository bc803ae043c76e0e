import Pathbase

/// An error of an ``SQLiteDatabase``: a file that can't be opened, or a failed SQLite call.
///
/// Opening throws it:
///
/// ```swift
/// do {
///     let database = try SQLiteDatabase(path: "notes.txt")
/// } catch let error as SQLiteDatabaseError {
///     print(error) // "notes.txt is not an SQLite database"
/// }
/// ```
///
/// Opening never changes a file it rejects. After opening, the throwing operations
/// (``SQLiteDatabase/batch(_:)``, ``SQLiteDatabase/store(_:for:timestamp:)``,
/// ``SQLiteDatabase/fetch(_:at:)``) throw it, and the non-throwing `Database` methods hand
/// it to ``SQLiteDatabase/Options/errorHandler``.
public enum SQLiteDatabaseError: Error, Equatable, Sendable, CustomStringConvertible {

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
    /// than the one asked for. A file keeps its setting for life, so its history has no gaps.
    case historyModeMismatch(path: String, fileKeepsHistory: Bool)

    /// The file can't be opened: it is missing and can't be created, is a directory, or
    /// lacks permissions.
    case cannotOpen(path: String, reason: String)

    /// The database was closed with ``SQLiteDatabase/close()``.
    case closed

    /// A value could not be encoded for storage (for example a `Codable` type whose
    /// `encode(to:)` throws). Nothing was written.
    case valueEncoding(path: Path, reason: String)

    /// A call to SQLite failed, with SQLite's result code and message
    /// (for example 13, "database or disk is full").
    case sqlite(code: Int32, message: String)

    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not an SQLite database"
        case .corrupt(let path, let reason):
            return "\(path) is a damaged database: \(reason)"
        case .newerFormat(let path, let found, let supported):
            return "\(path) was written by a newer Pathbase (format \(found); this version reads up to format \(supported))"
        case .notPathbase(let path):
            return "\(path) is an SQLite database of another application, not a Pathbase database"
        case .historyModeMismatch(let path, let fileKeepsHistory):
            return "\(path) was created with keepsHistory: \(fileKeepsHistory); open it with the same setting"
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .closed:
            return "the database is closed"
        case .valueEncoding(let path, let reason):
            return "cannot encode the value for \(path): \(reason)"
        case .sqlite(let code, let message):
            return "SQLite error \(code): \(message)"
        }
    }
}
