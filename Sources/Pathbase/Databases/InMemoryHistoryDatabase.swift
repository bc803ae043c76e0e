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

    /// `false`: a read of nothing stored is `nil`, whatever the type.
    public var _$conflatesStoredNil: Bool { false }

    /// The clock that stamps this database's own writes.
    public let clock: HybridLogicalClock
    private let lock = Lock()
    private let columnStorage = LockedState(ColumnDirectory<HistoryColumn>())
    package let modelTypes = ModelTypeRegistry()
    /// The asset folder (see ``AssetStoringDatabase``): temporary, removed with the database.
    let temporaryAssets = AssetStore.temporary()

    deinit { columnStorage.free() }

    /// The columns; touched only while holding `lock`.
    private var columns: ColumnDirectory<HistoryColumn> {
        unsafeAddress { UnsafePointer(columnStorage.pointer) }
        unsafeMutableAddress { columnStorage.pointer }
    }

    /// Creates an empty database whose writes are stamped by `clock`.
    public init(clock: HybridLogicalClock = HybridLogicalClock()) {
        self.clock = clock
    }

    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        lock.withLock {
            guard let column = columns[ColumnKey(path)],
                  let record = column.record(of: path.instance, at: timestamp),
                  let value = column.value(ofRecord: record, as: Value.self) else { return nil }
            return Timestamped(value: value, timestamp: column.entries[record].timestamp)
        }
    }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        lock.withLock {
            guard let column = columns[ColumnKey(path)],
                  let record = column.record(of: path.instance, at: nil) else { return nil }
            return column.value(ofRecord: record, as: Value.self)
        }
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        let timestamp = clock.now()
        set(value, for: path, timestamp: timestamp)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        lock.withLock {
            let key = ColumnKey(path)
            if let column = columns[key] {
                column.insert(value, for: path.instance, timestamp: timestamp)
            } else {
                let column = TypedHistoryColumn<Value>()
                column.insert(value, for: path.instance, timestamp: timestamp)
                columns.add(column, for: key)
            }
        }
    }

    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        // Collect under the lock, call the predicate outside it: predicates may read the database.
        let statuses: [(InstanceKey, InstanceStatus)] = lock.withLock {
            guard let column = columns[ColumnKey(model: model, property: .instanceId)] else { return [] }
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
        var records: [Record] = []
        lock.withLock {
            for (key, column) in columns.entries {
                column.appendRecords(after: timestamp, model: key.model, property: key.property, to: &records)
            }
        }
        records.sort(by: Record.chronological)
        if let limit, records.count > limit {
            records.removeSubrange(max(0, limit)...)
        }
        return records
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
            guard let column = columns[ColumnKey(path)], let index = column.record(of: path.instance, at: nil) else { return nil }
            return Record(path: path, timestamp: column.entries[index].timestamp, value: column.anyValue(ofRecord: index))
        }
    }

    public func records(at path: Path) -> [Record] {
        var records: [Record] = []
        lock.withLock {
            columns[ColumnKey(path)]?.appendRecords(of: path.instance, path: path, to: &records)
        }
        records.sort(by: Record.chronological)
        return records
    }
}

extension InMemoryHistoryDatabase: ChecksModelTypes {}

/// How ``UndoableDatabase`` takes back a batch that throws: its records are removed.
extension InMemoryHistoryDatabase: RecordWithdrawingDatabase {

    package func holdsRecord(at path: Path, timestamp: Timestamp) -> Bool {
        lock.withLock { columns[ColumnKey(path)]?.record(of: path.instance, exactlyAt: timestamp) != nil }
    }

    package func withdraw(_ records: [SyncRecord.Key]) {
        let byColumn = Dictionary(grouping: records) { ColumnKey($0.path) }
        lock.withLock {
            for (key, records) in byColumn {
                columns[key]?.withdraw(records.map { ($0.path.instance, $0.timestamp) })
            }
        }
    }
}
