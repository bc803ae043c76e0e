#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import Foundation

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
/// The type is not generic, so SwiftUI views can name it and find it in the environment
/// (it is an `ObservableObject` for that; see ``objectWillChange``):
///
/// ```swift
/// struct ContentView: View {
///     @EnvironmentObject private var database: ObservableDatabase
///     @Query var items: [Item]
///     var body: some View { List(items) { Text($0.name) } }
/// }
/// ContentView().environmentObject(ObservableDatabase(wrapping: try SQLiteDatabase(path: path)))
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
/// **History and batches.** An observable database is always a ``HistoryDatabase``, a
/// ``PrunableHistoryDatabase`` and a ``BatchDatabase``, and forwards each to the wrapped
/// database when it is one. Over a database that keeps no history (``keepsHistory`` is
/// `false`) it behaves as a database with an empty history: reads at a timestamp find
/// nothing, it has no records, and timestamped writes simply replace the current value.
/// Synchronization, conflict detection of editing contexts and per-instance history see
/// through it and treat it like the plain database it wraps (sync throws
/// ``SyncError/historyRequired(database:)``). Over a database without batches, a batch runs
/// its body directly.
///
/// Safe to use from any thread when the wrapped database is.
public final class ObservableDatabase: Database, ObservableObject, @unchecked Sendable {
    // @unchecked Sendable: the wrapped database is an `any Database`, which does not
    // require `Sendable`, so the compiler cannot check it (the generic version of this
    // class was `Sendable` exactly when its wrapped database was). Every stored property is
    // a constant; the observers, the clock and the model type registry are thread-safe; the
    // publisher never sends. So this class is as safe across threads as the wrapped
    // database, which for every database Pathbase provides means safe.

    /// The database that holds the data.
    public let wrapped: any Database

    /// The observers notified of this database's changes.
    public let instanceObservers: InstanceObservers?

    /// A publisher that never fires: the database itself does not change, its models do,
    /// and each notifies through its own `objectWillChange`.
    ///
    /// It makes the database an `ObservableObject`, so that SwiftUI can hand it down the
    /// view hierarchy:
    ///
    /// ```swift
    /// ContentView().environmentObject(database)
    /// ```
    public let objectWillChange = ObservableObjectPublisher()

    /// The same as ``instanceObservers``, never `nil`.
    private let observers: InstanceObservers

    /// The wrapped database when it keeps history; `nil` when it does not.
    private let history: (any HistoryDatabase)?

    /// The wrapped database when it keeps history and can prune it.
    private let prunable: (any PrunableHistoryDatabase)?

    /// Whether the wrapped database's batches are all or nothing.
    let runsBatches: Bool

    /// The wrapped database's clock, which stamps its writes; a clock of its own when the
    /// wrapped database keeps no history.
    public let clock: HybridLogicalClock

    package let modelTypes: ModelTypeRegistry

    /// Wraps a database so that its models notify observers of changes.
    ///
    /// ```swift
    /// let observed = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
    /// ```
    public init(wrapping wrapped: any Database) {
        self.wrapped = wrapped
        let observers = InstanceObservers()
        self.observers = observers
        self.instanceObservers = observers
        let history = wrapped.historyDatabase
        self.history = history
        self.prunable = history as? any PrunableHistoryDatabase
        self.runsBatches = wrapped.batchDatabase != nil
        self.clock = history?.clock ?? HybridLogicalClock()
        self.modelTypes = (wrapped as? any ChecksModelTypes)?.modelTypes ?? ModelTypeRegistry()
    }

    /// Whether the wrapped database keeps history: it is a ``HistoryDatabase``, and not
    /// itself an observable database (or another wrapper) over one that keeps none.
    /// Synchronization needs it.
    ///
    /// An `SQLiteDatabase` created with `keepsHistory: false` counts as keeping history
    /// here: it keeps the timestamps of its current values, which is all synchronization
    /// needs.
    ///
    /// ```swift
    /// ObservableDatabase(wrapping: InMemoryHistoryDatabase()).keepsHistory // true
    /// ObservableDatabase(wrapping: InMemoryDatabase()).keepsHistory        // false
    /// ```
    public var keepsHistory: Bool { history != nil }

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

extension ObservableDatabase: ChecksModelTypes {}

/// An observable database is a history database: timestamped writes — synchronization's —
/// notify too.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
/// database.apply(record) // observers of the record's instance are notified
/// ```
///
/// Over a database that keeps no history, it has an empty history: see each requirement.
extension ObservableDatabase: HistoryDatabase {

    /// The value at a path at a timestamp, from the wrapped database.
    ///
    /// Over a database that keeps no history: the current value, stamped ``Timestamp/zero``
    /// (older than any write), when `timestamp` is `nil`; `nil` for any timestamp.
    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        if let history { return history.get(path, at: timestamp) }
        guard timestamp == nil, let value: Value = wrapped.get(path) else { return nil }
        return Timestamped(value: value, timestamp: .zero)
    }

    /// Writes a timestamped record to the wrapped database and notifies the observers of
    /// the path's instance, also when the record is older than the current value.
    ///
    /// Over a database that keeps no history the value simply replaces the current one,
    /// whatever its timestamp: there is no history to tell which write is newer.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        observers.write(path) {
            if let history {
                history.set(value, for: path, timestamp: timestamp)
            } else {
                wrapped.set(value, for: path)
            }
        }
    }

    /// The instances of a model at a timestamp, from the wrapped database.
    ///
    /// Over a database that keeps no history: the current instances when `timestamp` is
    /// `nil`, none for any timestamp.
    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        if let history { return history.all(model: model, at: timestamp, where: predicate) }
        return timestamp == nil ? wrapped.all(model: model, where: predicate) : []
    }

    /// The wrapped database's records after a timestamp; none when it keeps no history.
    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        history?.records(after: timestamp, limit: limit) ?? []
    }

    /// The wrapped database's records at a path; none when it keeps no history.
    public func records(at path: Path) -> [Record] {
        history?.records(at: path) ?? []
    }

    /// The wrapped database's newest record at a path; `nil` when it keeps no history.
    public func latestRecord(at path: Path) -> Record? {
        history?.latestRecord(at: path)
    }

    /// The wrapped database's history start. Over a database that keeps no history, the
    /// current moment: it knows no earlier state, so a ``HistoryView`` of the past reports
    /// ``HistoryView/isBeforeHistoryStart``.
    public var historyStart: Timestamp? {
        guard let history else { return Timestamp(latestAt: Date()) }
        return history.historyStart
    }
}

extension ObservableDatabase: HistoryForwardingDatabase {}

/// An observable database prunes the wrapped one; pruning keeps every current value, so
/// nobody is notified.
///
/// ```swift
/// try database.prune(before: lastMonth)
/// ```
///
/// Pruning does nothing when the wrapped database cannot prune (it keeps its whole
/// history) or keeps no history (there is nothing to prune).
extension ObservableDatabase: PrunableHistoryDatabase {

    public func prune(before timestamp: Timestamp) throws {
        try prunable?.prune(before: timestamp)
    }
}

/// An observable database runs batches in the wrapped database, or runs their body
/// directly when the wrapped database has no batches.
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
/// Without batches in the wrapped database, writes made before a failure stay.
extension ObservableDatabase: BatchDatabase {

    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        try wrapped.inBatchIfSupported(body)
    }
}

extension ObservableDatabase: BatchForwardingDatabase {}
