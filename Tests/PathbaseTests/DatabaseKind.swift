import Pathbase

/// Every database implementation the contract suite runs against.
///
/// A test that takes `@Test(arguments: DatabaseKind.allCases)` checks one documented
/// behaviour on each kind. To put a new database through the whole suite, add a case here
/// and build it in `make()`.
enum DatabaseKind: String, CaseIterable, Sendable, CustomStringConvertible {

    /// ``InMemoryDatabase``: current values only.
    case inMemory

    /// ``InMemoryHistoryDatabase``: every record, newest wins.
    case inMemoryHistory

    /// The hand-written ``MinimalDatabase`` from the documentation.
    case minimal

    // Future kinds go here, for example:
    // case sqlite // SQLiteDatabase(), once PathbaseSQLite exists

    /// Creates a new, empty database of this kind.
    func make() -> any Database {
        switch self {
        case .inMemory: return InMemoryDatabase()
        case .inMemoryHistory: return InMemoryHistoryDatabase()
        case .minimal: return MinimalDatabase()
        }
    }

    var description: String { rawValue }
}
