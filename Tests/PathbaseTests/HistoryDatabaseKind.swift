import Pathbase
import PathbaseSQLite

/// Every history-keeping database the history suites (views, editing contexts, undo,
/// pruning, per-instance history) run against.
///
/// A test that takes `@Test(arguments: HistoryDatabaseKind.allCases)` checks one documented
/// behaviour on each kind. To put a new history database through the suites, add a case
/// here and build it in `make()`.
enum HistoryDatabaseKind: String, CaseIterable, Sendable, CustomStringConvertible {

    /// ``InMemoryHistoryDatabase``: every record, newest wins; prunable.
    case inMemoryHistory

    /// ``UndoableDatabase`` over an ``InMemoryHistoryDatabase``: a wrapper that must behave
    /// like the database it wraps.
    case undoable

    /// ``ObservedDatabase`` over an ``InMemoryHistoryDatabase``: a wrapper that notifies
    /// observers and must otherwise behave like the database it wraps.
    case observable

    /// ``SQLiteDatabase`` in a new temporary file (WAL), removed when the tests end.
    case sqliteFile

    /// ``SQLiteDatabase`` in memory.
    case sqliteMemory

    /// Creates a new, empty database of this kind.
    func make() -> any HistoryDatabase {
        switch self {
        case .inMemoryHistory: return InMemoryHistoryDatabase()
        case .undoable: return UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        case .observable: return ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        case .sqliteFile: return SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        case .sqliteMemory: return SQLiteTestFiles.makeDatabase(path: nil)
        }
    }

    /// Whether databases of this kind can prune their history. Declared, not found by a
    /// cast: a kind that loses the capability fails ``DatabaseKindCapabilityTests`` instead of
    /// silently dropping out of the pruning tests.
    var isPrunable: Bool {
        switch self {
        case .inMemoryHistory, .observable, .sqliteFile, .sqliteMemory: true
        case .undoable: false
        }
    }

    /// The kinds whose databases can prune their history.
    static var prunable: [HistoryDatabaseKind] {
        allCases.filter(\.isPrunable)
    }

    /// The kinds that are not wrappers themselves, to be wrapped by an ``UndoableDatabase``.
    static var undoableBases: [HistoryDatabaseKind] {
        allCases.filter { $0 != .undoable }
    }

    var description: String { rawValue }
}

/// What the undo tests use of an ``UndoableDatabase``, whatever history database it wraps
/// (the wrapper is generic over its base; the kinds make bases as `any HistoryDatabase`).
protocol UndoableHistory: HistoryDatabase, BatchDatabase {
    var depth: Int { get }
    var canUndo: Bool { get }
    var canRedo: Bool { get }
    @discardableResult func undo() -> Bool
    @discardableResult func redo() -> Bool
    func removeAllSteps()
    var wrappedDatabase: any HistoryDatabase { get }
}

extension UndoableDatabase: UndoableHistory where Base: HistoryDatabase {
    var wrappedDatabase: any HistoryDatabase { base }
}

extension HistoryDatabaseKind {

    /// An ``UndoableDatabase`` over a new database of this kind.
    func makeUndoable(depth: Int = 100) -> any UndoableHistory {
        Self.undoable(over: make(), depth: depth)
    }

    /// An ``UndoableDatabase`` over `database`.
    static func undoable(over database: any HistoryDatabase, depth: Int = 100) -> any UndoableHistory {
        wrap(database, depth: depth)
    }

    private static func wrap<Base: HistoryDatabase>(_ base: Base, depth: Int) -> any UndoableHistory {
        UndoableDatabase(wrapping: base, depth: depth)
    }
}
