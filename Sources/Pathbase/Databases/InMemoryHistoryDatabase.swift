import Foundation

/// A database that keeps every write in memory, as timestamped records.
///
/// It answers everything ``InMemoryDatabase`` does, plus what any path held at any time,
/// which instances existed then, and which records were written after a timestamp:
///
/// ```swift
/// let database = InMemoryHistoryDatabase()
/// let item = Item.create(in: database, id: 1, title: "Draft")
/// let draftTime = database.clock.now()
/// item.title = "Final"
/// print(database.history(of: item.path(of: .title), as: String.self).map(\.value)) // ["Draft", "Final"]
/// ```
///
/// Records of one path are kept sorted by timestamp in typed columns, so reading the
/// current value is a dictionary lookup and reading a past value is a binary search.
/// Safe to use from any thread.
public final class InMemoryHistoryDatabase: PrunableHistoryDatabase, @unchecked Sendable {
    // @unchecked: `columns` and `prunedBefore` are touched only while holding `lock`.

    /// `false`: a read of nothing stored is `nil`, whatever the type.
    public var _$conflatesStoredNil: Bool { false }

    /// The clock that stamps this database's own writes.
    public let clock: HybridLogicalClock
    private let lock = Lock()
    private let columnStorage = LockedState(ColumnDirectory<HistoryColumn>())
    package let modelTypes = ModelRegistry(conflicts: .stop)
    /// The asset folder (see ``AssetStoringDatabase``): temporary, removed with the database.
    let temporaryAssets = AssetStore.temporary()

    deinit { columnStorage.free() }

    /// The columns; touched only while holding `lock`.
    private var columns: ColumnDirectory<HistoryColumn> {
        unsafeAddress { UnsafePointer(columnStorage.pointer) }
        unsafeMutableAddress { columnStorage.pointer }
    }

    /// How much superseded history the database keeps by itself (``HistoryRetention``).
    ///
    /// A column of records (one property of one model) is trimmed once it holds twice as
    /// many records as after its last trim (and at least ``retentionPassSize``), in one pass
    /// over it: a write costs amortised constant time, and a path may hold up to that many
    /// superseded records beyond the policy in between.
    public let retention: HistoryRetention

    /// The fewest records a column holds before it is trimmed to ``retention``.
    public static let retentionPassSize = 64

    /// Creates an empty database whose writes are stamped by `clock`, keeping the history
    /// `retention` keeps (every record by default).
    public init(clock: HybridLogicalClock = HybridLogicalClock(), retention: HistoryRetention = .everything) {
        self.clock = clock
        self.retention = retention
    }

    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        lock.withLock {
            guard let column = columns[ModelProperty(path)],
                let record = column.record(of: path.instance, at: timestamp),
                let value = column.value(ofRecord: record, as: Value.self)
            else { return nil }
            return Timestamped(value: value, timestamp: column.entries[record].timestamp)
        }
    }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        lock.withLock {
            guard let column = columns[ModelProperty(path)],
                let record = column.record(of: path.instance, at: nil)
            else { return nil }
            return column.value(ofRecord: record, as: Value.self)
        }
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        let timestamp = clock.now()
        set(value, for: path, timestamp: timestamp)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        let column = lock.withLock {
            let key = ModelProperty(path)
            if let column = columns[key] {
                column.insert(value, for: path.instance, timestamp: timestamp)
                return column
            } else {
                let column = TypedHistoryColumn<Value>()
                column.insert(value, for: path.instance, timestamp: timestamp)
                columns.add(column, for: key)
                return column
            }
        }
        guard !retention.keepsEverything, lock.withLock({ column.entries.count >= max(Self.retentionPassSize, 2 * column.retainedCount) }) else { return }
        trim(column)
    }

    /// Trims one column to ``retention``, keeping what the replica syncing the database has
    /// not pushed (``HistoryDatabase/retentionBound``, read before taking the lock: it reads
    /// the database).
    private func trim(_ column: HistoryColumn) {
        let bound: Timestamp
        switch retentionBound {
        case .unbounded: bound = Timestamp(time: .max, counter: .max, replica: .max)
        case .nothing:
            lock.withLock { column.retainedCount = column.entries.count }
            return
        case .through(let limit): bound = limit
        }
        let horizon = retention.age.map { Timestamp(latestAt: Date().addingTimeInterval(-$0)) }
        lock.withLock { column.retain(retention, through: bound, horizon: horizon) }
    }

    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        // Collect under the lock, call the predicate outside it: predicates may read the database.
        let statuses: [(InstanceKey, InstanceStatus)] = lock.withLock {
            guard let column = columns[ModelProperty(model: model, property: .instanceId)] else { return [] }
            return column.heads.keys.compactMap { instance in
                column.record(of: instance, at: timestamp)
                    .flatMap { column.value(ofRecord: $0, as: InstanceStatus.self) }
                    // A stored `.notCreated` (written by undo) means the same as no status.
                    .flatMap { $0 == .notCreated ? nil : (instance, $0) }
            }
        }
        return listing(statuses, predicate)
    }

    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        let limit = limit.map { max(0, $0) } ?? .max
        guard limit > 0 else { return [] }
        // Merges the columns' chronological orders from their first record after `timestamp`:
        // a page costs a binary search per column and a heap step per record, not a sort of
        // the whole history, so paging through it (sync) stays linear.
        return lock.withLock {
            let columns = self.columns.entries
            var orders: [ContiguousArray<Int>] = []
            orders.reserveCapacity(columns.count)
            var cursors: [RecordCursor] = []
            var remaining = 0
            for (number, (key, column)) in columns.enumerated() {
                let order = column.chronologicalOrder()
                orders.append(order)
                let position = column.firstPosition(in: order, after: timestamp)
                guard position < order.count else { continue }
                remaining += order.count - position
                cursors.append(RecordCursor(column: number, model: key.model, property: key.property, position: position, record: order[position], entry: column.entries[order[position]]))
            }
            var heap = RecordCursorHeap(cursors)
            var records: [Record] = []
            records.reserveCapacity(min(limit, remaining))
            while records.count < limit, let cursor = heap.first {
                let column = columns[cursor.column].column
                let path = Path(model: cursor.model, instance: cursor.instance, property: cursor.property)
                records.append(Record(path: path, timestamp: cursor.timestamp, value: column.anyValue(ofRecord: cursor.record)))
                let order = orders[cursor.column]
                let position = cursor.position + 1
                if position < order.count {
                    heap.replaceFirst(
                        with: RecordCursor(column: cursor.column, model: cursor.model, property: cursor.property, position: position, record: order[position], entry: column.entries[order[position]]))
                } else {
                    heap.removeFirst()
                }
            }
            return records
        }
    }

    /// The moment ``prune(before:)`` last pruned to, or `nil` if the history is whole.
    public var historyStart: Timestamp? {
        lock.withLock { prunedBefore }
    }
    private var prunedBefore: Timestamp?

    /// Drops, for every path, the records older than its newest record at or before
    /// `timestamp`; the state at `timestamp` and everything after it stay.
    public func prune(before timestamp: Timestamp) {
        lock.withLock {
            for (_, column) in columns.entries { column.prune(before: timestamp) }
            prunedBefore = max(prunedBefore ?? timestamp, timestamp)
        }
    }

    public func latestRecord(at path: Path) -> Record? {
        lock.withLock {
            guard let column = columns[ModelProperty(path)], let index = column.record(of: path.instance, at: nil) else { return nil }
            return Record(path: path, timestamp: column.entries[index].timestamp, value: column.anyValue(ofRecord: index))
        }
    }

    public func records(at path: Path) -> [Record] {
        var records: [Record] = []
        lock.withLock {
            columns[ModelProperty(path)]?.appendRecords(of: path.instance, path: path, to: &records)
        }
        records.sort(by: Record.chronological)
        return records
    }
}

extension InMemoryHistoryDatabase: ChecksModelTypes {}

/// How ``UndoableDatabase`` takes back a batch that throws: its records are removed.
extension InMemoryHistoryDatabase: RecordWithdrawingDatabase {

    package func holdsRecord(at path: Path, timestamp: Timestamp) -> Bool {
        lock.withLock { columns[ModelProperty(path)]?.record(of: path.instance, exactlyAt: timestamp) != nil }
    }

    package func withdraw(_ records: [SyncRecord.Key]) {
        let byColumn = Dictionary(grouping: records) { ModelProperty($0.path) }
        lock.withLock {
            for (key, records) in byColumn {
                columns[key]?.withdraw(records.map { ($0.path.instance, $0.timestamp) })
            }
        }
    }
}

/// The next record of one column in ``InMemoryHistoryDatabase/records(after:limit:)``.
private struct RecordCursor {
    /// The column's number in the directory, and its position in the column's order.
    let column: Int
    let model: ModelKey
    let property: PropertyKey
    let position: Int
    /// The record's index in the column, its timestamp and its instance.
    let record: Int
    let timestamp: Timestamp
    let instance: InstanceKey

    init(column: Int, model: ModelKey, property: PropertyKey, position: Int, record: Int, entry: RecordEntry) {
        self.column = column
        self.model = model
        self.property = property
        self.position = position
        self.record = record
        timestamp = entry.timestamp
        instance = entry.instance
    }

    /// `Record.chronological`: timestamp, then path (model, instance, property).
    @inline(__always)
    func precedes(_ other: RecordCursor) -> Bool {
        if timestamp != other.timestamp { return timestamp < other.timestamp }
        if model != other.model { return model < other.model }
        if instance != other.instance { return instance < other.instance }
        return property < other.property
    }
}

/// A binary min-heap of column cursors: the next record of all columns is its first.
private struct RecordCursorHeap {
    private var items: [RecordCursor]

    init(_ cursors: [RecordCursor]) {
        items = cursors
        for index in stride(from: items.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    var first: RecordCursor? { items.first }

    mutating func replaceFirst(with cursor: RecordCursor) {
        items[0] = cursor
        siftDown(from: 0)
    }

    mutating func removeFirst() {
        let last = items.removeLast()
        guard !items.isEmpty else { return }
        items[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            let right = left + 1
            let child = right < items.count && items[right].precedes(items[left]) ? right : left
            guard items[child].precedes(items[parent]) else { return }
            items.swapAt(parent, child)
            parent = child
        }
    }
}
