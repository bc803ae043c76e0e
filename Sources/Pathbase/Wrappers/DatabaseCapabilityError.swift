import Foundation

/// A database was asked for something it cannot do.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryDatabase())
/// try database.batch { }  // throws .batchesUnavailable: in-memory databases have no batches
/// ```
public enum DatabaseCapabilityError: Error, Equatable, LocalizedError {

    /// The database cannot take back the writes of a failing batch, so it runs none.
    case batchesUnavailable

    public var errorDescription: String? {
        switch self {
        case .batchesUnavailable:
            "The database has no batches: it cannot take back the writes of a batch that fails, so the batch did not run. Use a database with batches (SQLiteDatabase), or write without a batch."
        }
    }
}
