/// A database that keeps the current value of every path in memory.
///
/// Use it for tests, previews and data that need not survive the process:
///
/// ```swift
/// let database = InMemoryDatabase()
/// let alice = Person.create(in: database, id: 1, name: "Alice")
/// alice.name = "Alicia"
/// ```
///
/// Values are kept unboxed, in one typed column per model property, which makes reads and
/// writes cheaper than a plain `[Path: Any]` dictionary. It keeps no history; use
/// ``InMemoryHistoryDatabase`` for that. Safe to use from any thread.
public final class InMemoryDatabase: Database, @unchecked Sendable {
    // @unchecked: `columns` is touched only while holding `lock`.

    /// `false`: a read of nothing stored is `nil`, whatever the type.
    public var _$conflatesStoredNil: Bool { false }

    private let lock = Lock()
    private let columnStorage = LockedState(ColumnDirectory<ValueColumn>())
    package let modelTypes = ModelRegistry(conflicts: .stop)
    /// The asset folder (see ``AssetStoringDatabase``): temporary, removed with the database.
    let temporaryAssets = AssetStore.temporary()

    deinit { columnStorage.free() }

    /// The columns; touched only while holding `lock`.
    private var columns: ColumnDirectory<ValueColumn> {
        unsafeAddress { UnsafePointer(columnStorage.pointer) }
        unsafeMutableAddress { columnStorage.pointer }
    }

    /// Creates an empty database.
    public init() {}

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        lock.withLock {
            columns[ModelProperty(path)]?.get(path.instance, as: Value.self)
        }
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        lock.withLock {
            let key = ModelProperty(path)
            if let column = columns[key] {
                column.set(value, for: path.instance)
            } else {
                let column = TypedValueColumn<Value>()
                column.set(value, for: path.instance)
                columns.add(column, for: key)
            }
        }
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        // Collect under the lock, call the predicate outside it: predicates may read the database.
        var statuses: [(InstanceKey, InstanceStatus)] = []
        lock.withLock {
            columns[ModelProperty(model: model, property: .instanceId)]?.forEach(as: InstanceStatus.self) { instance, status in
                // A stored `.notCreated` (written by undo) means the same as no status.
                if status != .notCreated { statuses.append((instance, status)) }
            }
        }
        return listing(statuses, predicate)
    }

    /// The number of value slots held in all columns, used or free: stays put while a path
    /// changes its value's type back and forth.
    package var valueSlotCount: Int {
        lock.withLock { columns.entries.reduce(0) { $0 + $1.column.slotCount } }
    }

    /// Every stored value with its path, for exporting the current state.
    func currentValues() -> [(path: Path, value: any DatabaseValue)] {
        lock.withLock {
            var values: [(path: Path, value: any DatabaseValue)] = []
            for (key, column) in columns.entries {
                column.forEachValue { instance, value in
                    values.append((Path(model: key.model, instance: instance, property: key.property), value))
                }
            }
            return values
        }
    }

    /// The number of values stored, statuses included.
    public var count: Int {
        lock.withLock {
            var count = 0
            for (_, column) in columns.entries { column.forEachValue { _, _ in count += 1 } }
            return count
        }
    }
}

extension InMemoryDatabase: ChecksModelTypes {}
