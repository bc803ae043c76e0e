import Foundation
import PathbaseSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Temporary SQLite files for the contract suite's ``DatabaseKind/sqliteFile``: one new
/// file per database, all in one directory of this process, removed when the process exits.
enum SQLiteTestFiles {

    /// The directory of this test process.
    static let directory: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-contract-\(getpid())-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: SQLiteTestFiles.directory)
        }
        return path
    }()

    /// A path in ``directory`` where no file exists yet.
    static func newPath() -> String {
        directory + "/\(UUID().uuidString).sqlite"
    }

    /// Opens a database at `path`, or in memory when `nil`; setup failing stops the tests.
    static func makeDatabase(path: String?) -> SQLiteDatabase {
        do {
            return try path.map { try SQLiteDatabase(path: $0) } ?? SQLiteDatabase()
        } catch {
            fatalError("cannot create an SQLite test database: \(error)")
        }
    }
}
