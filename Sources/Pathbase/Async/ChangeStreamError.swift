import Foundation

/// Why a change stream could not start.
///
/// ```swift
/// do {
///     let changes = try InMemoryDatabase().changes(of: Person.self)
/// } catch ChangeStreamError.notObserved {
///     // wrap the database in ObservedDatabase or ObservableDatabase first
/// }
/// ```
public enum ChangeStreamError: Error, Hashable, LocalizedError {

    /// The database tells nobody about its writes: it is not an ``ObservedDatabase``, an
    /// ``ObservableDatabase`` or a wrapper of one.
    case notObserved

    public var errorDescription: String? {
        switch self {
        case .notObserved:
            "Change streams need an observed database: wrap it in ObservedDatabase(wrapping:) or ObservableDatabase(wrapping:) and write through the wrapper."
        }
    }
}
