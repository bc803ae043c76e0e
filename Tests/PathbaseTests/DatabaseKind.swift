import Foundation
import Pathbase
import PathbaseSQLite

/// Every database the contract suite runs against: each backend alone, wrapped by each
/// wrapper, and wrapped by each ordered pair of wrappers.
///
/// A test that takes `@Test(arguments: DatabaseKind.allCases)` checks one documented
/// behaviour on each kind. To put a new database or wrapper through the whole suite, add a
/// case to ``Backend`` or ``Wrapper``.
struct DatabaseKind: Sendable, Hashable, CustomStringConvertible {

    /// The databases that hold the data.
    enum Backend: String, CaseIterable, Sendable {
        /// ``InMemoryDatabase``: current values only.
        case inMemory
        /// ``InMemoryHistoryDatabase``: every record, newest wins.
        case inMemoryHistory
        /// The hand-written ``MinimalDatabase`` of the seed's documentation
        /// (`cache[path] as? Value`).
        case minimal
        /// The README's ``ReadmeMinimalDatabase`` (`values[path].flatMap { $0 as? Value }`).
        case readmeMinimal
        /// ``SQLiteDatabase`` in a new temporary file (WAL), removed when the tests end.
        case sqliteFile
        /// ``SQLiteDatabase`` in memory.
        case sqliteMemory

        func make() -> any Database {
            switch self {
            case .inMemory: InMemoryDatabase()
            case .inMemoryHistory: InMemoryHistoryDatabase()
            case .minimal: MinimalDatabase()
            case .readmeMinimal: ReadmeMinimalDatabase()
            case .sqliteFile: SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
            case .sqliteMemory: SQLiteTestFiles.makeDatabase(path: nil)
            }
        }
    }

    /// The wrappers that show their base's data and must behave like it.
    enum Wrapper: String, CaseIterable, Sendable {
        /// ``CachedDatabase`` with a cache small enough to evict.
        case cached
        /// ``ObservedDatabase``, the typed observed wrapper.
        case observed
        /// ``ObservableDatabase``, the non-generic observed wrapper SwiftUI uses.
        case observable
        /// ``UndoableDatabase``.
        case undoable

        func wrap(_ database: any Database) -> any Database {
            switch self {
            case .cached: cache(database)
            case .observed: observe(database)
            case .observable: ObservableDatabase(wrapping: database)
            case .undoable: undo(database)
            }
        }

        // Generic, so that each wrapper is made for the concrete type of its base and has
        // exactly its capabilities.
        private func cache<Base: Database>(_ base: Base) -> any Database {
            CachedDatabase(wrapping: base, cache: MaximumCountCache(maxCount: 8))
        }

        private func observe<Base: Database>(_ base: Base) -> any Database {
            ObservedDatabase(wrapping: base)
        }

        private func undo<Base: Database>(_ base: Base) -> any Database {
            UndoableDatabase(wrapping: base)
        }
    }

    let backend: Backend
    /// Innermost first.
    let wrappers: [Wrapper]

    /// Creates a new, empty database of this kind.
    func make() -> any Database {
        makeWithBackend().database
    }

    /// Creates a new, empty database of this kind, and returns the backend inside too.
    func makeWithBackend() -> (database: any Database, backend: any Database) {
        let backend = backend.make()
        return (wrappers.reduce(backend) { database, wrapper in wrapper.wrap(database) }, backend)
    }

    static func plain(_ backend: Backend) -> DatabaseKind {
        DatabaseKind(backend: backend, wrappers: [])
    }

    /// The backends alone.
    static let backends = Backend.allCases.map(plain)

    /// Every backend alone, under each wrapper, and under each ordered pair of different
    /// wrappers.
    static let allCases: [DatabaseKind] = Backend.allCases.flatMap { backend in
        let singles = Wrapper.allCases.map { [$0] }
        let pairs = Wrapper.allCases.flatMap { inner in
            Wrapper.allCases.filter { $0 != inner }.map { [inner, $0] }
        }
        return ([[]] + singles + pairs).map { DatabaseKind(backend: backend, wrappers: $0) }
    }

    static let inMemory = plain(.inMemory)
    static let inMemoryHistory = plain(.inMemoryHistory)
    static let minimal = plain(.minimal)
    static let readmeMinimal = plain(.readmeMinimal)
    static let sqliteFile = plain(.sqliteFile)
    static let sqliteMemory = plain(.sqliteMemory)

    /// Whether databases of this kind keep history by type (are ``HistoryDatabase``s).
    /// Declared, not found by a cast: a kind that loses history fails
    /// ``DatabaseKindCapabilityTests`` instead of silently skipping the history checks. The
    /// non-generic ObservableDatabase has no history by type, and a wrapper around it sees none.
    var keepsHistory: Bool {
        let backendKeepsHistory =
            switch backend {
            case .inMemoryHistory, .sqliteFile, .sqliteMemory: true
            case .inMemory, .minimal, .readmeMinimal: false
            }
        return backendKeepsHistory && !wrappers.contains(.observable)
    }

    /// Whether databases of this kind may be used from several threads at once: every
    /// database Pathbase provides; the two hand-written ones are single-threaded on purpose.
    var isThreadSafe: Bool {
        backend != .minimal && backend != .readmeMinimal
    }

    /// The thread-safe kinds alone and under one wrapper: what the several-threads suites
    /// run on, one case at a time.
    static let threadSafeKinds = allCases.filter { $0.isThreadSafe && $0.wrappers.count <= 1 }

    /// Whether the data lives in SQLite, which runs queries in SQL.
    var isSQLite: Bool { backend == .sqliteFile || backend == .sqliteMemory }

    var description: String {
        (wrappers.reversed().map(\.rawValue) + [backend.rawValue]).joined(separator: "→")
    }
}
