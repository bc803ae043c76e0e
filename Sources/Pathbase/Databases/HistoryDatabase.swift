import Foundation

/// A database that keeps every write as a timestamped ``Record``.
///
/// The current value of a path is its newest record, by ``Timestamp``. A write with an
/// older timestamp than the current one is kept in history but does not change the
/// current value ("newest wins"), which is what makes synchronized replicas converge.
///
/// On top of the plain ``Database`` requirements (which a history database gets for free
/// from this protocol's extension), it answers what a path held at any time, which
/// instances existed at any time, and which records were written after a timestamp:
///
/// ```swift
/// let database = InMemoryHistoryDatabase()
/// let alice = Person.create(in: database, id: 1, name: "Alice")
/// let before = database.clock.now()
/// alice.name = "Alicia"
/// let old: Timestamped<String>? = database.get(alice.path(of: .name), at: before)
/// print(old?.value) // Optional("Alice")
/// ```
public protocol HistoryDatabase: Database {

    /// The clock that stamps this database's own writes.
    var clock: HybridLogicalClock { get }

    /// Returns the newest record at a path written at or before `timestamp` (the current
    /// value when `timestamp` is `nil`), or `nil` if there is none or it is not a `Value`.
    func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>?

    /// Stores a value with an explicit timestamp. The current value changes only if the
    /// timestamp is newer than that of the current value; the record is kept either way.
    /// Writing the same value, path and timestamp again changes nothing.
    func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp)

    /// Calls `predicate` with every instance of a model that had a status at `timestamp`
    /// (now when `nil`), with that status, and returns the non-`nil` results.
    func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus) -> T?) -> [T]

    /// Returns the records with a timestamp after `timestamp` (all records when `nil`),
    /// oldest first, at most `limit` of them.
    func records(after timestamp: Timestamp?, limit: Int?) -> [Record]

    /// Returns every record stored at a path, oldest first.
    func records(at path: Path) -> [Record]

    /// Returns the newest record stored at a path, whatever its value type.
    ///
    /// A default implementation takes the last of `records(at:)`; databases override it
    /// when they can answer without reading the whole history of the path.
    func latestRecord(at path: Path) -> Record?

    /// The earliest moment whose state the database still knows exactly, or `nil` if it
    /// holds its whole history (see ``PrunableHistoryDatabase``). Wrappers forward it.
    var historyStart: Timestamp? { get }

    // MARK: StateModel's requirements
    //
    // A history database written for StateModel gives these three, by date, instead of the
    // timestamp-based ones above; each set has defaults in terms of the other (as `Hashable`
    // has for `hashValue` and `hash(into:)`). Implement one set: a type that implements
    // neither would call the two defaults in turn forever. Pathbase's own databases implement
    // the timestamp-based set, which keeps the counter and replica of each timestamp.

    /// StateModel's `get(_:at:)` by date: the newest value at a path written at or
    /// before `date` (the current value when `nil`).
    @available(*, deprecated, message: "Pathbase reads history by Timestamp: use get(_:at:) with Timestamp(latestAt: date)")
    @_disfavoredOverload
    func get<Value: DatabaseValue>(_ path: Path, at date: Date?) -> Timestamped<Value>?

    /// StateModel's `set(_:for:timestamp:)` by date: stores a value written at `date` (now when
    /// `nil`).
    @available(*, deprecated, message: "Pathbase stamps writes with a Timestamp: use set(_:for:) or set(_:for:timestamp:)")
    func set<Value: DatabaseValue>(_ value: Value, for path: Path, at date: Date?)

    /// StateModel's `all(model:at:where:)` by date: every instance of a model
    /// with a status at `date` (now when `nil`), with that status and the date it was set.
    @available(*, deprecated, message: "Pathbase lists instances at a Timestamp: use all(model:at:where:) with Timestamp(latestAt: date)")
    @_disfavoredOverload
    func all<T>(model: ModelKey, at date: Date?, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus, _ date: Date) -> T?) -> [T]
}

extension HistoryDatabase {

    public func latestRecord(at path: Path) -> Record? {
        records(at: path).last
    }

    /// `nil`: a database that cannot prune holds its whole history.
    public var historyStart: Timestamp? { nil }

    /// The current value at a path.
    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        get(path, at: nil)?.value
    }

    /// Stores a value at a path, stamped with the database's clock.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        set(value, for: path, timestamp: clock.now())
    }

    /// Calls `predicate` with every instance of a model that currently has a status.
    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        all(model: model, at: nil, where: predicate)
    }

    /// Returns all records after a timestamp, oldest first.
    public func records(after timestamp: Timestamp? = nil) -> [Record] {
        records(after: timestamp, limit: nil)
    }

    /// Stores a record: its value at its path, with its timestamp.
    ///
    /// A state of a property with a ``MergePolicy`` (a ``MergeableValue``) is merged with the
    /// state the path held: when the path then lacks part of either, their join is written
    /// as this database's own newer record.
    public func apply(_ record: Record) {
        clock.receive(record.timestamp)
        guard let incoming = MergeableTypes.mergeable(record.value) else {
            set(erased: record.value, for: record.path, timestamp: record.timestamp)
            return
        }
        // Atomic with local changes of merged properties: a join written from a state read
        // before this record was stored would leave it out.
        AtomicUpdate.run(on: self) {
            let before = latestRecord(at: record.path)
            set(erased: record.value, for: record.path, timestamp: record.timestamp)
            if let before { writeJoin(of: incoming, over: before, incomingIsNewer: record.timestamp > before.timestamp) }
        }
    }

    /// Returns the values a path held, oldest first, skipping records of another type.
    public func history<Value: DatabaseValue>(of path: Path, as type: Value.Type = Value.self) -> [Timestamped<Value>] {
        records(at: path).compactMap { record in
            (record.value as? Value).map { Timestamped(value: $0, timestamp: record.timestamp) }
        }
    }
}
