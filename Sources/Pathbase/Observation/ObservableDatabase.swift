/// A database whose models notify observers when their values change.
///
/// Wrap a database and use the wrapper everywhere you would use the database, in particular
/// to fetch models. Its models are `ObservableObject`s whose `objectWillChange` fires, and
/// `Observable`s that `withObservationTracking` and SwiftUI track:
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryDatabase())
/// let alice = Person.create(in: database, id: 1, name: "Alice")
/// withObservationTracking {
///     _ = alice.name
/// } onChange: {
///     print("name will change")
/// }
/// Person(database: database, id: 1).name = "Alicia" // prints "name will change"
/// ```
///
/// **What notifies.** Every write through this database notifies the observers of exactly
/// the instance written: a property set on any handle of the instance, a committed
/// ``EditingContext`` created from this database, a timestamped write or
/// ``HistoryDatabase/apply(_:)`` (the synchronization path), and a batch. Writes made to the
/// wrapped database directly are not seen. For undo, put the ``UndoableDatabase`` outside:
/// `UndoableDatabase(wrapping: ObservableDatabase(wrapping: InMemoryHistoryDatabase()))`;
/// models fetched from the undoable database are observed, and undo and redo write through
/// the observable one. A ``CachedDatabase`` wrapping an observable database forwards its
/// observers the same way.
///
/// **Granularity.** `withObservationTracking` fires when a property it read changes
/// (per path); `objectWillChange` fires for any change of its instance, status included.
/// ``changes`` streams every written path.
///
/// **Threads.** Observers are told on the thread that writes, before the value changes
/// (`objectWillChange` and `withObservationTracking`'s `onChange`); the change stream gets
/// the path after the write. Write on the main thread when SwiftUI observes, or hop to it
/// in your sink. A timestamped write notifies even when its record is older than the current
/// value and does not replace it.
///
/// **Cost.** Only models of an observed database pay: a read registers with the
/// Observation framework, a write looks up its instance's observers. Models of other
/// databases pay one call that returns `nil` per read.
///
/// When the wrapped database is a ``HistoryDatabase`` or ``BatchDatabase``, so is this
/// one. Safe to use from any thread when the wrapped database is.
public final class ObservableDatabase<Wrapped: Database>: Database {

    /// The database that holds the data.
    public let wrapped: Wrapped

    /// The observers notified of this database's changes.
    public let instanceObservers: InstanceObservers?

    /// The same as ``instanceObservers``, never `nil`.
    private let observers: InstanceObservers

    package let modelTypes: ModelTypeRegistry

    /// Wraps a database so that its models notify observers of changes.
    ///
    /// ```swift
    /// let observed = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
    /// ```
    public init(wrapping wrapped: Wrapped) {
        self.wrapped = wrapped
        let observers = InstanceObservers()
        self.observers = observers
        self.instanceObservers = observers
        self.modelTypes = (wrapped as? any ChecksModelTypes)?.modelTypes ?? ModelTypeRegistry()
    }

    /// The paths written through this database from now on; see ``InstanceObservers/changes``.
    ///
    /// ```swift
    /// Task {
    ///     for await path in database.changes { print(path) }
    /// }
    /// ```
    public var changes: AsyncStream<Path> { observers.changes }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        wrapped.get(path)
    }

    /// Writes to the wrapped database and notifies the observers of the path's instance.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        observers.write(path) { wrapped.set(value, for: path) }
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        wrapped.all(model: model, where: predicate)
    }
}

extension ObservableDatabase: Sendable where Wrapped: Sendable {}

extension ObservableDatabase: ChecksModelTypes {}

/// An observable history database: timestamped writes — synchronization's — notify too.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
/// database.apply(record) // observers of the record's instance are notified
/// ```
extension ObservableDatabase: HistoryDatabase where Wrapped: HistoryDatabase {

    /// The wrapped database's clock, which stamps writes.
    public var clock: HybridLogicalClock { wrapped.clock }

    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        wrapped.get(path, at: timestamp)
    }

    /// Writes a timestamped record to the wrapped database and notifies the observers of
    /// the path's instance, also when the record is older than the current value.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        observers.write(path) { wrapped.set(value, for: path, timestamp: timestamp) }
    }

    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        wrapped.all(model: model, at: timestamp, where: predicate)
    }

    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        wrapped.records(after: timestamp, limit: limit)
    }

    public func records(at path: Path) -> [Record] {
        wrapped.records(at: path)
    }

    public func latestRecord(at path: Path) -> Record? {
        wrapped.latestRecord(at: path)
    }

    public var historyStart: Timestamp? { wrapped.historyStart }
}

/// An observable prunable database prunes the wrapped one; pruning keeps every current
/// value, so nobody is notified.
extension ObservableDatabase: PrunableHistoryDatabase where Wrapped: PrunableHistoryDatabase {

    public func prune(before timestamp: Timestamp) throws {
        try wrapped.prune(before: timestamp)
    }
}

/// An observable database runs batches in the wrapped database.
///
/// ```swift
/// try database.batch {
///     order.status = "paid"
///     invoice.paid = true
/// }
/// ```
///
/// Observers are notified of each write as it is made, so a batch that fails may have
/// notified of changes it then took back; observers that read again see the old values.
extension ObservableDatabase: BatchDatabase where Wrapped: BatchDatabase {

    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        try wrapped.batch(body)
    }
}
