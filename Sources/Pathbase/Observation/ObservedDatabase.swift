/// A database whose models notify observers when their values change, with the
/// capabilities of the database it wraps.
///
/// It is what ``ObservableDatabase`` wraps, typed: an `ObservedDatabase<SQLiteDatabase>`
/// runs batches in one transaction, answers history and lets queries run in SQL, by type,
/// while an `ObservedDatabase<InMemoryDatabase>` has no history to offer:
///
/// ```swift
/// let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
/// let alice = Person.create(in: database, id: 1, name: "Alice")
/// let subscription = alice.objectWillChange.sink { print("alice will change") }
/// database.apply(record) // a synchronized record notifies too
/// let past = database.view(at: yesterday)
/// ```
///
/// Every write through it — a property set on any handle, a timestamped write or applied
/// record, a committed ``EditingContext`` made from it, undo through an
/// ``UndoableDatabase`` that wraps it — notifies the observers of exactly the instance
/// written, on the writing thread, before the value changes. See ``ObservableDatabase``
/// for what is observed and how; SwiftUI's environment needs that non-generic type:
/// `ObservableDatabase(database)` shares this database's observers.
///
/// Safe to use from any thread when the wrapped database is.
public final class ObservedDatabase<Base: Database>: DatabaseWrapper {

    /// The database that holds the data.
    public let base: Base

    /// The observers notified of this database's changes.
    public let observers: InstanceObservers

    /// Wraps a database so that its models notify observers of changes.
    ///
    /// ```swift
    /// let observed = ObservedDatabase(wrapping: try SQLiteDatabase(path: path))
    /// ```
    public init(wrapping base: Base) {
        self.base = base
        self.observers = InstanceObservers()
    }

    /// The paths written through this database from now on; see ``InstanceObservers/changes``.
    public var changes: AsyncStream<Path> { observers.changes }

    public var instanceObservers: InstanceObservers? { observers }

    /// Writes to the wrapped database and notifies the observers of the path's instance.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        observers.write(path) { base.set(value, for: path) }
    }
}

extension ObservedDatabase: Sendable where Base: Sendable {}

/// An observed history database: timestamped writes — synchronization's — notify too, also
/// when the record is older than the current value and does not replace it.
extension ObservedDatabase: HistoryDatabase where Base: HistoryDatabase {

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        observers.write(path) { base.set(value, for: path, timestamp: timestamp) }
    }
}

/// Batches run in the wrapped database. Observers are told of each write as it is made; when
/// a batch throws and the database takes its writes back, they are told again of every path
/// it wrote, so that live queries and live collections show the stored values.
extension ObservedDatabase: BatchDatabase where Base: BatchDatabase {

    /// Runs `body` in one batch of the wrapped database; if it throws, observers hear again
    /// of every path it wrote.
    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        var written: [Path] = []
        do {
            return try base.batch {
                observers.batchBegan()
                defer { written = observers.batchEnded() }
                return try body()
            }
        } catch {
            observers.takenBack(written)
            throw error
        }
    }
}

/// Records withdrawn under the observers (a batch taken back by ``UndoableDatabase``): the
/// observers of their paths hear of it, as of a batch that throws.
extension ObservedDatabase: RecordWithdrawingDatabase where Base: RecordWithdrawingDatabase {

    package func withdraw(_ records: [SyncRecord.Key]) {
        base.withdraw(records)
        observers.takenBack(records.map(\.path))
    }
}

/// Pruning keeps every current value, so nobody is notified.
extension ObservedDatabase: PrunableHistoryDatabase where Base: PrunableHistoryDatabase {}
