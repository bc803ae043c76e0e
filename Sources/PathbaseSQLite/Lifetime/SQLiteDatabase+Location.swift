import Foundation
import Pathbase

extension SQLiteDatabase {

    /// Where a database lives: a file, memory, a temporary file, or the app's standard place.
    ///
    /// ```swift
    /// let scratch = try SQLiteDatabase(location: .temporary)          // removed when closed
    /// let appData = try SQLiteDatabase(location: .applicationDefault) // "the app's database"
    /// ```
    public struct Location: Hashable, Sendable, CustomStringConvertible {

        enum Kind: Hashable, Sendable {
            case file(String)
            case memory
            case temporary
        }

        let kind: Kind

        /// The database file at `path`, created if missing.
        public static func file(_ path: String) -> Location {
            Location(kind: .file(path))
        }

        /// A database in memory, gone when released.
        public static let memory = Location(kind: .memory)

        /// A new file in the system's temporary folder, removed (with its WAL files and
        /// asset folder) when the database is closed or released: a real file for tests and
        /// scratch work, without clean-up code.
        public static let temporary = Location(kind: .temporary)

        /// The app's database in the platform's place for app data: `Application Support`
        /// on Apple platforms, `$XDG_DATA_HOME` (or `~/.local/share`) on Linux, in a folder
        /// named after the app (its bundle identifier, else the process name), created if
        /// missing.
        ///
        /// ```swift
        /// let database = try SQLiteDatabase(location: .applicationDefault)
        /// print(database.path ?? "") // ~/.local/share/MyApp/database.sqlite on Linux
        /// ```
        public static var applicationDefault: Location {
            applicationDefault(named: Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)
        }

        /// The database `file` (default `database.sqlite`) in the platform's place for app
        /// data, in the folder `application`; see ``applicationDefault``.
        public static func applicationDefault(named application: String, file: String = "database.sqlite") -> Location {
            let folder = applicationDataFolder(environment: ProcessInfo.processInfo.environment)
            return .file(folder.appendingPathComponent(application, isDirectory: true).appendingPathComponent(file).path)
        }

        /// The platform's folder for app data.
        static func applicationDataFolder(environment: [String: String]) -> URL {
            #if canImport(Darwin)
                if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
                    return support
                }
            #endif
            // The XDG base directory specification ignores relative paths.
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return URL(fileURLWithPath: data, isDirectory: true)
            }
            let home =
                environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            return home.appendingPathComponent(".local/share", isDirectory: true)
        }

        public var description: String {
            switch kind {
            case .file(let path): path
            case .memory: "memory"
            case .temporary: "a temporary file"
            }
        }
    }

    /// Opens a database at a location.
    ///
    /// ```swift
    /// let scratch = try SQLiteDatabase(location: .temporary)
    /// ```
    ///
    /// A file's folder is created if missing (for ``Location/applicationDefault``). Throws
    /// as ``init(path:options:)``.
    public convenience init(location: Location, options: Options = Options()) throws(SQLiteDatabaseError) {
        switch location.kind {
        case .memory:
            try self.init(options: options)
        case .file(let path):
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .cannotOpen(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
            }
            try self.init(path: path, options: options)
        case .temporary:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("pathbase-\(UUID().uuidString).sqlite").path
            try self.init(path: path, options: options)
            for suffix in ["", "-wal", "-shm", "-journal"] {
                lifetime.removeOnClose(URL(fileURLWithPath: path + suffix))
            }
            lifetime.removeOnClose(Self.assetFolder(forFile: path))
        }
    }
}
