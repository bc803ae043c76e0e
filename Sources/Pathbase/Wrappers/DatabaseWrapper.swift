/// A database that wraps another one and forwards everything it does not change.
///
/// `CachedDatabase`, ``ObservedDatabase``, ``UndoableDatabase`` and ``HistoryView`` are
/// wrappers. A wrapper names its ``base`` and implements only what it changes; every other
/// requirement — of ``Database`` and of the capabilities its base has — is forwarded by the
/// default implementations below. A wrapper declares each capability it keeps with a
/// conditional conformance, so it has exactly its base's capabilities, checked by the
/// compiler:
///
/// ```swift
/// final class LoggingDatabase<Base: Database>: DatabaseWrapper {
///     let base: Base
///     init(wrapping base: Base) { self.base = base }
///
///     func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
///         print("set", path)
///         base.set(value, for: path)
///     }
/// }
/// extension LoggingDatabase: HistoryDatabase where Base: HistoryDatabase {}
/// extension LoggingDatabase: BatchDatabase where Base: BatchDatabase {}
/// ```
///
/// A `LoggingDatabase<SQLiteDatabase>` then runs batches in one transaction, answers
/// history and lets queries run in SQL; a `LoggingDatabase<InMemoryDatabase>` has no history
/// to offer and does not claim any.
public protocol DatabaseWrapper: Database {

    /// The type of the wrapped database.
    associatedtype Base: Database

    /// The database this one wraps.
    var base: Base { get }

    /// Whether this wrapper shows its base's current state — what it reads is what the base
    /// holds now — so queries may run in the base (in SQL for `SQLiteDatabase`).
    ///
    /// `true` by default; ``HistoryView`` (the past) says `false`.
    var showsBaseCurrentState: Bool { get }
}

extension DatabaseWrapper {

    public var showsBaseCurrentState: Bool { true }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        base.get(path)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        base.set(value, for: path)
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, where: predicate)
    }

    /// The base's observers: models used through a wrapper of an observed database are
    /// observed too.
    public var instanceObservers: InstanceObservers? { base.instanceObservers }

    /// The base's answer: a wrapper reads what its base stores.
    public var _$conflatesStoredNil: Bool { base._$conflatesStoredNil }
}

/// A wrapper of a history database forwards history: it declares
/// `extension MyWrapper: HistoryDatabase where Base: HistoryDatabase {}`.
extension DatabaseWrapper where Self: HistoryDatabase, Base: HistoryDatabase {

    /// The base's clock: a wrapper's writes are stamped as the base's own.
    public var clock: HybridLogicalClock { base.clock }

    /// The base's start of history.
    public var historyStart: Timestamp? { base.historyStart }

    // The plain requirements go to the base's own (not through the timestamped ones, as
    // for a history database without a base): the base knows best how to serve them.

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        base.get(path)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        base.set(value, for: path)
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, where: predicate)
    }

    /// The base's value at `path` as of `timestamp`.
    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        base.get(path, at: timestamp)
    }

    /// Stores a timestamped record in the base.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        base.set(value, for: path, timestamp: timestamp)
    }

    /// The base's instances of `model` as they were at `timestamp`.
    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, at: timestamp, where: predicate)
    }

    /// The base's records after `timestamp`.
    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        base.records(after: timestamp, limit: limit)
    }

    /// The base's records of `path`.
    public func records(at path: Path) -> [Record] {
        base.records(at: path)
    }

    /// The base's newest record of `path`.
    public func latestRecord(at path: Path) -> Record? {
        base.latestRecord(at: path)
    }
}

/// A wrapper of a batch database forwards batches: it declares
/// `extension MyWrapper: BatchDatabase where Base: BatchDatabase {}`.
extension DatabaseWrapper where Self: BatchDatabase, Base: BatchDatabase {

    /// Runs `body` as one batch of the base.
    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        try base.batch(body)
    }
}

/// A wrapper of a prunable database forwards pruning: it declares
/// `extension MyWrapper: PrunableHistoryDatabase where Base: PrunableHistoryDatabase {}`.
extension DatabaseWrapper where Self: PrunableHistoryDatabase, Base: PrunableHistoryDatabase {

    /// Prunes the base's history before `timestamp`.
    public func prune(before timestamp: Timestamp) throws {
        try base.prune(before: timestamp)
    }
}

/// A wrapper of a database that can withdraw records answers whether it holds one from its
/// base; it declares `withdraw(_:)` itself, to do what the withdrawal means for it.
extension DatabaseWrapper where Self: RecordWithdrawingDatabase, Base: RecordWithdrawingDatabase {

    package func holdsRecord(at path: Path, timestamp: Timestamp) -> Bool {
        base.holdsRecord(at: path, timestamp: timestamp)
    }
}
