import Foundation

/// A history-keeping database whose old history can be removed to save space.
///
/// Pruning keeps the state as of the pruning date — the newest record of every path at
/// that moment — and every record after it, and removes the rest:
///
/// ```swift
/// let lastMonth = Date().addingTimeInterval(-30 * 86400)
/// try database.prune(before: lastMonth)
/// database.view(at: lastMonth)       // still exact
/// database.view(at: .distantPast)     // before the history start: empty
/// ```
///
/// A ``HistoryView`` of a moment before ``HistoryDatabase/historyStart`` cannot be exact any more, so it
/// shows an empty database (no values, no instances) and reports
/// ``HistoryView/isBeforeHistoryStart``; it never shows wrong values.
///
/// On a database that a ``Replica`` syncs, prune through ``Replica/prune(before:)``: pruning
/// here does not look at the outbox, and a superseded record not yet pushed would never
/// reach the server.
public protocol PrunableHistoryDatabase: HistoryDatabase {

    /// Removes the records that are not needed for the state at `timestamp` or later, and
    /// moves ``HistoryDatabase/historyStart`` to `timestamp`.
    func prune(before timestamp: Timestamp) throws
}

extension PrunableHistoryDatabase {

    /// Removes the records that are not needed for the state at `date` or later.
    public func prune(before date: Date) throws {
        try prune(before: Timestamp(latestAt: date))
    }
}
