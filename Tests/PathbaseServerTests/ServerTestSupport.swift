import Foundation
import PathbaseServer

/// SplitMix64, as in PathbaseTests (test targets cannot share a file; a PathbaseTestSupport
/// target would hold one copy): a sequence fixed by its seed, so a failing schedule replays.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

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
