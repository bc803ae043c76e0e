import Foundation
import Pathbase
import PathbaseSQLite

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

    /// The hand-written ``MinimalDatabase`` of the seed's documentation
    /// (`cache[path] as? Value`).
    case minimal

    /// The README's ``ReadmeMinimalDatabase`` (`values[path].flatMap { $0 as? Value }`).
    case readmeMinimal

    /// ``CachedDatabase`` over ``InMemoryDatabase``, with a cache small enough to evict.
    case cachedInMemory

    /// ``CachedDatabase`` over ``InMemoryHistoryDatabase``, with a cache small enough to evict.
    case cachedHistory

    /// ``SQLiteDatabase`` in a new temporary file (WAL), removed when the tests end.
    case sqliteFile

    /// ``SQLiteDatabase`` in memory.
    case sqliteMemory

    /// Creates a new, empty database of this kind.
    func make() -> any Database {
        switch self {
        case .inMemory: return InMemoryDatabase()
        case .inMemoryHistory: return InMemoryHistoryDatabase()
        case .minimal: return MinimalDatabase()
        case .readmeMinimal: return ReadmeMinimalDatabase()
        case .sqliteFile: return SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath())
        case .sqliteMemory: return SQLiteTestFiles.makeDatabase(path: nil)
        case .cachedInMemory: return CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: 8))
        case .cachedHistory: return CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 8))
        }
    }

    var description: String { rawValue }
}
