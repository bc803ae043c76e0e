import Foundation
import PathbaseServer

/// Temporary files for the server tests, in one directory removed at exit.
enum ServerTestFiles {

    static let directory: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-server-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: ServerTestFiles.directory)
        }
        return path
    }()

    /// A path where no file exists yet.
    static func newPath() -> String {
        directory + "/\(UUID().uuidString).sqlite"
    }
}

/// The two stores every store test runs on.
enum StoreKind: String, CaseIterable, CustomStringConvertible {
    case memory, sqlite

    func make() throws -> any SyncServerStore {
        switch self {
        case .memory: InMemorySyncServerStore()
        case .sqlite: try SQLiteSyncServerStore(path: ServerTestFiles.newPath())
        }
    }

    var description: String { rawValue }
}
