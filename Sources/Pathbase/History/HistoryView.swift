import Foundation

/// A read-only view of a history-keeping database as it was at one moment.
///
/// A view shows the values *and the instances* of that moment: instances created later
/// are absent, deleted ones show the status they had then. Models work with it like with
/// any database:
///
/// ```swift
/// let yesterday = Date().addingTimeInterval(-86400)
/// let view = database.view(at: yesterday)
/// let oldItems = view.all(of: Item.self)
/// view.moveView(to: Date()) // now shows the present
/// ```
///
/// Writes to a view are ignored: the past cannot change. Each ignored write is counted in
/// ``ignoredWriteCount``, so code that writes to a view by mistake can be caught in tests.
///
/// A view is itself a ``HistoryDatabase`` whose history ends at the view's moment, so
/// views of views and per-instance history work inside it. It is not observed (the past does
/// not change), queries are evaluated on its models (not in SQL, which sees the present), and
/// model ids are checked against the viewed database's. Safe to use from any thread.
public final class HistoryView: HistoryDatabase, @unchecked Sendable {
    // @unchecked: `currentTimestamp` and `ignoredWrites` are touched only while holding `lock`.

    /// The database this view looks into.
    public let base: any HistoryDatabase

    private let lock = Lock()
    private var currentTimestamp: Timestamp
    private var ignoredWrites = 0

    /// Creates a view of `base` at a timestamp; see also ``HistoryDatabase/view(at:)-(Date)``.
    public init(wrapping base: any HistoryDatabase, timestamp: Timestamp) {
        self.base = base
        self.currentTimestamp = timestamp
    }

    /// The viewed database's clock.
    public var clock: HybridLogicalClock { base.clock }

    public var historyStart: Timestamp? { base.historyStart }

    /// The moment the view shows: every write stamped at or before it is visible.
    public var timestamp: Timestamp {
        lock.withLock { currentTimestamp }
    }

    /// The number of writes made to this view and ignored.
    public var ignoredWriteCount: Int {
        lock.withLock { ignoredWrites }
    }

    /// Moves the view to another moment; models fetched from it read the new moment's
    /// values from then on.
    public func moveView(to date: Date) {
        moveView(to: Timestamp(latestAt: date))
    }

    /// Moves the view to another timestamp.
    public func moveView(to timestamp: Timestamp) {
        lock.withLock { currentTimestamp = timestamp }
    }

    /// Whether the view's moment lies before the history that a pruned database still
    /// holds; such a view shows an empty database rather than values that may be wrong.
    public var isBeforeHistoryStart: Bool {
        guard let start = base.historyStart else { return false }
        return timestamp < start
    }

    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        if isBeforeHistoryStart { return nil }
        return base.get(path, at: bounded(timestamp))
    }

    /// Ignored: a view cannot change the past. Counted in ``ignoredWriteCount``.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        lock.withLock { ignoredWrites += 1 }
    }

    /// Ignored: a view cannot change the past. Counted in ``ignoredWriteCount``.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        lock.withLock { ignoredWrites += 1 }
    }

    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        if isBeforeHistoryStart { return [] }
        return base.all(model: model, at: bounded(timestamp), where: predicate)
    }

    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        if isBeforeHistoryStart { return [] }
        let end = self.timestamp
        let visible = base.records(after: timestamp, limit: nil).filter { $0.timestamp <= end }
        return limit.map { Array(visible.prefix(max(0, $0))) } ?? visible
    }

    public func records(at path: Path) -> [Record] {
        if isBeforeHistoryStart { return [] }
        let end = self.timestamp
        return base.records(at: path).filter { $0.timestamp <= end }
    }

    public func latestRecord(at path: Path) -> Record? {
        if isBeforeHistoryStart { return nil }
        let end = self.timestamp
        if let latest = base.latestRecord(at: path), latest.timestamp <= end { return latest }
        return records(at: path).last
    }

    /// The earlier of the view's moment and `timestamp`.
    private func bounded(_ timestamp: Timestamp?) -> Timestamp {
        let end = self.timestamp
        guard let timestamp else { return end }
        return min(timestamp, end)
    }
}

extension HistoryDatabase {

    /// Returns a read-only view of the database as it was at `date`.
    ///
    /// ```swift
    /// let view = database.view(at: Date().addingTimeInterval(-3600))
    /// let hourAgo: Item? = view.get(id: 1)
    /// ```
    public func view(at date: Date) -> HistoryView {
        HistoryView(wrapping: self, timestamp: Timestamp(latestAt: date))
    }

    /// Returns a read-only view of the database as it was at `timestamp`.
    public func view(at timestamp: Timestamp) -> HistoryView {
        HistoryView(wrapping: self, timestamp: timestamp)
    }
}
