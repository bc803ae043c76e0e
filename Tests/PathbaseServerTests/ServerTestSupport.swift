import Foundation
import PathbasePostgres
import PathbaseServer
import PathbaseTestSupport

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

/// The stores every shared server test runs on: the same behaviour is asked of each.
enum StoreKind: String, CaseIterable, CustomStringConvertible {
    case memory, sqlite, postgres

    /// The stores that persist, where several servers can share one database.
    static let persistent: [StoreKind] = [.sqlite, .postgres]

    /// A new, empty store.
    func make() async throws -> any SyncServerStore {
        try await makeShared(count: 1)[0]
    }

    /// `count` stores on one new, empty database, as separate server processes open it
    /// (the in-memory store: one store, shared).
    func makeShared(count: Int) async throws -> [any SyncServerStore] {
        switch self {
        case .memory:
            let store = InMemorySyncServerStore()
            return Array(repeating: store, count: count)
        case .sqlite:
            let path = ServerTestFiles.newPath()
            return try (0 ..< count).map { _ in try SQLiteSyncServerStore(path: path) }
        case .postgres:
            let url = try await TestPostgres.newDatabase()
            var stores: [any SyncServerStore] = []
            for _ in 0 ..< count {
                stores.append(try await TestPostgres.store(url: url))
            }
            return stores
        }
    }

    /// A new, empty store that relays commands, as every store of the package does.
    func makeCommandQueue() async throws -> any CommandQueueStore {
        try Self.commandQueue(try await make())
    }

    /// `store` as a ``CommandQueueStore``, or a test failure naming it.
    static func commandQueue(_ store: any SyncServerStore) throws -> any CommandQueueStore {
        guard let queue = store as? any CommandQueueStore else {
            throw HTTPTestFailure("\(type(of: store)) does not relay commands")
        }
        return queue
    }

    /// A `pathbase serve` process on a new store of this kind (SQLite or PostgreSQL), with
    /// an account named `account`, and the account's token.
    func serveProcess(account: String) async throws -> (serve: ServeProcess, token: String) {
        let store = try await newStoreArguments()
        let token = try ServeProcess.addAccount(account, store: store)
        return await (try ServeProcess(store: store), token)
    }

    /// The arguments of a new, empty store of this kind: `--database FILE` or `--postgres URL`.
    func newStoreArguments() async throws -> [String] {
        self == .postgres ? ["--postgres", try await TestPostgres.newDatabase()] : ["--database", ServerTestFiles.newPath()]
    }

    var description: String { rawValue }
}

extension ServeProcess {

    /// Runs `pathbase accounts add NAME` on `store` and returns the token it printed.
    static func addAccount(_ name: String, store: [String]) throws -> String {
        let added = try run(["accounts", "add", name] + store)
        guard added.status == 0 else { throw HTTPTestFailure("pathbase accounts add failed: \(added.errors)") }
        return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A `pathbase serve` process on a new SQLite file with `options`, the token of the file's one
/// account (alice), and the file's path.
func serveWithAccount(_ options: [String] = []) async throws -> (serve: ServeProcess, token: String, file: String) {
    let file = ServerTestFiles.newPath()
    let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", file])
    guard added.status == 0 else { throw HTTPTestFailure("pathbase accounts add failed: \(added.errors)") }
    return (try await ServeProcess(store: ["--database", file] + options), added.output.trimmingCharacters(in: .whitespacesAndNewlines), file)
}
