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
/// ``EditingContext`` created from this database, a synchronization response applied to it,
/// and a batch. Writes made to the wrapped database directly are not seen. For undo, put an
/// ``UndoableDatabase`` around the typed ``ObservedDatabase`` and hand SwiftUI
/// `ObservableDatabase(observed)`: models fetched from the undoable database are observed,
/// and undo and redo write through the observed one.
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
/// **Inside other wrappers, use ``ObservedDatabase``.** This type is for the outside, where
/// SwiftUI finds it. A wrapper put around it (a `CachedDatabase`, an ``UndoableDatabase``)
/// sees only a ``Database``, so it has no batches or history by type;
/// `CachedDatabase(wrapping: ObservedDatabase(wrapping: sqlite), cache: cache)` keeps them.
///
/// **History and batches.** The type is not generic, so it has by type only what every
/// database has. What the wrapped database can do more is still used wherever Pathbase
/// needs it: ``batch(_:)`` runs in its batches, synchronization, editing contexts, undo and
/// imports use its history and batches, and queries run in SQL on `SQLiteDatabase`. Over a
/// database without history (``keepsHistory`` is `false`) synchronization throws
/// ``SyncError/historyRequired(database:)``. For history by type — `view(at:)`, `records`,
/// `apply` — use the typed ``ObservedDatabase``, and hand it to SwiftUI as
/// `ObservableDatabase(observed)`:
///
/// ```swift
/// let observed = ObservedDatabase(wrapping: try SQLiteDatabase(path: path))
/// let database = ObservableDatabase(observed) // the same observers
/// let yesterday = observed.view(at: Date().addingTimeInterval(-86400))
/// ```
///
/// Safe to use from any thread when the wrapped database is.
public final class ObservableDatabase: Database, ObservableObject, @unchecked Sendable {
    // @unchecked Sendable: the wrapped database is an `any Database`, which does not
    // require `Sendable`, so the compiler cannot check it. Every stored property is a
    // constant and the publisher never sends, so this class is as safe across threads as
    // the wrapped database, which for every database Pathbase provides means safe.

    /// The observed database: an ``ObservedDatabase`` of the database passed to
    /// ``init(wrapping:)``, or the observed database passed to ``init(_:)``.
    public let base: any Database

    /// The observers notified of this database's changes.
    public let observers: InstanceObservers

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

    /// Wraps a database so that its models notify observers of changes.
    ///
    /// ```swift
    /// let observed = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
    /// ```
    public init(wrapping database: any Database) {
        if let observable = database as? ObservableDatabase {
            // Already observed: share its observers rather than hide its base's capabilities.
            (self.base, self.observers) = (observable.base, observable.observers)
        } else {
            (self.base, self.observers) = Self.observe(database)
        }
    }

    /// Gives an ``ObservedDatabase`` the non-generic type SwiftUI's environment needs; both
    /// notify the same observers.
    ///
    /// ```swift
    /// let observed = ObservedDatabase(wrapping: try SQLiteDatabase(path: path))
    /// ContentView().environmentObject(ObservableDatabase(observed))
    /// ```
    public init<Base>(_ observed: ObservedDatabase<Base>) {
        self.base = observed
        self.observers = observed.observers
    }

    private static func observe<Base: Database>(_ database: Base) -> (any Database, InstanceObservers) {
        let observed = ObservedDatabase(wrapping: database)
        return (observed, observed.observers)
    }

    public var instanceObservers: InstanceObservers? { observers }

    /// The wrapped database's answer.
    public var _$conflatesStoredNil: Bool { base._$conflatesStoredNil }

    /// Whether the wrapped database keeps history, which synchronization needs.
    ///
    /// ```swift
    /// ObservableDatabase(wrapping: InMemoryHistoryDatabase()).keepsHistory // true
    /// ObservableDatabase(wrapping: InMemoryDatabase()).keepsHistory        // false
    /// ```
    public var keepsHistory: Bool { historyDatabase != nil }

    /// The paths written through this database from now on; see ``InstanceObservers/changes``.
    ///
    /// ```swift
    /// Task {
    ///     for await path in database.changes { print(path) }
    /// }
    /// ```
    public var changes: AsyncStream<Path> { observers.changes }

    /// Runs `body` in one batch of the wrapped database: all of its writes are kept, or none.
    ///
    /// ```swift
    /// try database.batch {
    ///     order.status = "paid"
    ///     invoice.paid = true
    /// }
    /// ```
    ///
    /// - Throws: ``DatabaseCapabilityError/batchesUnavailable`` when the wrapped database has
    ///   no batches (nothing runs), or the error of `body` or of the batch.
    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        guard let batches = batchDatabase else { throw DatabaseCapabilityError.batchesUnavailable }
        return try batches.batch(body)
    }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        base.get(path)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        base.set(value, for: path)
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, where: predicate)
    }
}

/// Capabilities are found in the observed database.
extension ObservableDatabase: ErasedDatabaseWrapper {
    package var erasedBase: any Database { base }
}
