import Foundation

/// A scratch space over a database: edits stay in the context until committed.
///
/// Create a context from any database, work with models in it as usual, then commit all
/// edits at once or discard them:
///
/// ```swift
/// let context = database.createEditingContext()
/// let item: Item = context.create(id: 123)
/// item.title = "Draft"
/// context.commitChanges() // now in the database
/// ```
///
/// Nothing is visible in the database before the commit. Inside the context, `get`,
/// `active`, `all` and statuses reflect the pending edits. A context made with
/// ``Database/createEditingContext()`` is a live overlay: it sees database changes to paths
/// it has not edited. One made with ``HistoryDatabase/createEditingContextWithCurrentState()``
/// is a snapshot: later database changes stay invisible until the next commit.
///
/// **Commits.** Every edit is kept in order and written at commit, so a history-keeping
/// database records each step, not only the last value per path. On a ``BatchDatabase``
/// (such as `SQLiteDatabase`) the commit is one batch: all or nothing, also across a crash.
/// By default the commit's writes are the newest, so they win over changes the database got
/// meanwhile; ``commitChanges(onConflict:)`` with ``ConflictPolicy/fail`` instead refuses to
/// commit if the database changed a path after the context first read or wrote it (a
/// property with a merge policy that the context wrote is no conflict: its change merges with
/// the database's, as a counter's increments add up). Telling
/// needs the records' timestamps, so conflicts are detected on a ``HistoryDatabase`` only;
/// on other databases (also an ``ObservableDatabase`` over one that keeps no history)
/// `.fail` commits like `.newestWins`. A commit inside a batch of the database joins that
/// batch: if the batch throws, the commit's writes are taken back with the rest of it, and
/// the context, which handed its edits over at the commit, does not get them back.
///
/// A context is itself a ``Database``; contexts can be nested. Model ids are checked against
/// the database's, so two model types with one id are caught in a context too. Safe to use
/// from any thread.
public final class EditingContext: Database, @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock`.

    /// What a commit does when the database changed a path the context used.
    public enum ConflictPolicy: Sendable {
        /// The context's edits are written as the newest values and win.
        case newestWins
        /// Nothing is written; the commit throws ``EditingContextError/conflicts(_:)``.
        case fail
    }

    /// The database that commits write to.
    public let database: any Database

    /// Where reads of unedited paths go: the database itself, or a snapshot view of it.
    private let reader: any Database
    /// Moves the snapshot view to now after a commit; `nil` for a live context.
    private let advanceSnapshot: (() -> Void)?
    /// The database when it keeps history, for conflict detection; `nil` otherwise.
    private let history: (any HistoryDatabase)?
    /// Where the newest record of a path is read when the context first uses it: the
    /// snapshot view, or the database.
    private let baseHistory: (any HistoryDatabase)?
    private let lock = Lock()
    /// The pending edits, oldest first, with increasing sequence numbers.
    private var edits: [Edit] = []
    private var latestEdit: [Path: Int] = [:]
    private var nextSequence: UInt64 = 0
    private var reportError: @Sendable (any Error) -> Void = EditingContext.printToStandardError
    /// The newest record timestamp of each path the context used, when it first used it
    /// (only when the database keeps history), for conflict detection.
    private var seen: [Path: Timestamp?] = [:]
    /// How many times pending edits were discarded.
    private var discards: UInt64 = 0
    /// For each path edited with a mergeable state (a property with a ``MergePolicy``), the
    /// state the context read before its first edit: a commit lands the change from it.
    private var origins: [Path: (any DatabaseValue)?] = [:]

    private struct Edit {
        /// Tells a commit which edits it wrote, whatever a concurrent discard or later
        /// edits did to the list meanwhile.
        let sequence: UInt64
        let path: Path
        let value: any DatabaseValue
        /// Whether the value is a mergeable state, which a commit lands as a change.
        let isMergeable: Bool
    }

    init(database: any Database, reader: any Database, advanceSnapshot: (() -> Void)? = nil) {
        self.database = database
        self.reader = reader
        self.advanceSnapshot = advanceSnapshot
        let history = database.historyDatabase
        self.history = history
        self.baseHistory = history.map { reader as? any HistoryDatabase ?? $0 }
    }

    /// Whether the context holds edits not yet committed.
    public var hasChanges: Bool {
        lock.withLock { !edits.isEmpty }
    }

    /// The paths edited and not yet committed, in the order they were first edited.
    public var changedPaths: [Path] {
        lock.withLock {
            var seenPaths = Set<Path>()
            return edits.map(\.path).filter { seenPaths.insert($0).inserted }
        }
    }

    // MARK: Database

    /// The answer of the database unedited paths are read from (edits keep `nil` apart).
    public var _$conflatesStoredNil: Bool { reader._$conflatesStoredNil }

    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        let pending: (found: Bool, value: Value?) = lock.withLock {
            guard let index = latestEdit[path] else { return (false, nil) }
            return (true, edits[index].value as? Value)
        }
        if pending.found { return pending.value }
        noteUse(of: path)
        return reader.get(path)
    }

    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        noteUse(of: path)
        let isMergeable = Value.self is any MergeableValue.Type
        if isMergeable, lock.withLock({ latestEdit[path] == nil && origins[path] == nil }) {
            let origin = (reader.get(path) as Value?).map { $0 as any DatabaseValue }
            lock.withLock {
                if latestEdit[path] == nil { origins[path] = origin }
            }
        }
        lock.withLock {
            latestEdit[path] = edits.count
            edits.append(Edit(sequence: nextSequence, path: path, value: value, isMergeable: isMergeable))
            nextSequence += 1
        }
    }

    public func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        var statuses: [InstanceKey: InstanceStatus] = [:]
        for (instance, status) in reader.all(model: model, where: { ($0, $1) }) {
            statuses[instance] = status
        }
        lock.withLock {
            for (path, index) in latestEdit where path.model == model && path.isStatus {
                statuses[path.instance] = edits[index].value as? InstanceStatus
            }
        }
        return statuses.compactMap { instance, status in
            status == .notCreated ? nil : predicate(instance, status)
        }
    }

    // MARK: Committing

    /// Writes every pending edit to the database, in order, as one batch where the database
    /// supports it; the context's edits win over concurrent changes.
    ///
    /// If the database fails to store the batch, nothing is written, the edits stay pending
    /// and the error goes to ``errorHandler`` (by default printed to standard error); use
    /// ``commitChanges(onConflict:)`` to get it thrown instead.
    public func commitChanges() {
        do {
            try commitChanges(onConflict: .newestWins)
        } catch {
            errorHandler(error)
        }
    }

    /// Receives the failures of ``commitChanges()``, which can't throw.
    ///
    /// ```swift
    /// context.errorHandler = { error in logger.error("not saved: \(error)") }
    /// ```
    ///
    /// By default the error is printed to standard error. Called on the committing thread.
    public var errorHandler: @Sendable (any Error) -> Void {
        get { lock.withLock { reportError } }
        set { lock.withLock { reportError = newValue } }
    }

    /// The default ``errorHandler``.
    public static let printToStandardError: @Sendable (any Error) -> Void = { error in
        StandardError.write("Pathbase EditingContext: the commit failed, the edits stay pending: \(error)")
    }

    /// Writes every pending edit to the database, in order, as one batch where the database
    /// supports it.
    ///
    /// - Throws: ``EditingContextError/conflicts(_:)`` with `.fail` when the database changed
    ///   a path after the context first used it; the error of the database's batch if it
    ///   could not be stored. Either way nothing is written and the edits stay pending.
    public func commitChanges(onConflict policy: ConflictPolicy) throws {
        let (pending, origins): ([Edit], [Path: (any DatabaseValue)?]) = lock.withLock { (edits, self.origins) }
        guard let lastWritten = pending.last?.sequence else { return }
        func store() throws {
            if policy == .fail {
                let conflicts = conflictingPaths()
                if !conflicts.isEmpty { throw EditingContextError.conflicts(conflicts) }
            }
            // A mergeable state lands as the change the context made to it: a context's
            // increment adds to the increments the database got meanwhile.
            var previous = origins
            for edit in pending {
                guard edit.isMergeable else {
                    database.set(erased: edit.value, for: edit.path)
                    continue
                }
                if let landed = database.landedValue(edit.value, changedFrom: previous[edit.path] ?? nil, at: edit.path) {
                    database.set(erased: landed, for: edit.path)
                }
                previous[edit.path] = edit.value
            }
        }
        try database.inBatchIfSupported(store)
        lock.withLock {
            // Drop exactly the edits written: a discard meanwhile may have dropped them
            // already, and edits made meanwhile stay pending. Edits are in sequence order.
            let written = edits.prefix { $0.sequence <= lastWritten }.count
            let committed = edits.prefix(written)
            edits.removeFirst(written)
            latestEdit = [:]
            for (index, edit) in edits.enumerated() { latestEdit[edit.path] = index }
            seen = [:]
            // Edits made meanwhile change the states as the context showed them committed.
            var remainingOrigins: [Path: (any DatabaseValue)?] = [:]
            for edit in committed where edit.isMergeable && latestEdit[edit.path] != nil {
                remainingOrigins[edit.path] = edit.value
            }
            self.origins = remainingOrigins
        }
        // A snapshot moves to the committed state, so the context keeps showing its edits.
        advanceSnapshot?()
    }

    /// Drops every pending edit; the context shows the database again.
    ///
    /// Edits that a commit running on another thread is writing are not pending any more:
    /// the commit stores them.
    public func discardChanges() {
        lock.withLock {
            edits = []
            latestEdit = [:]
            seen = [:]
            origins = [:]
            discards &+= 1
        }
    }

    // MARK: Conflicts

    /// Remembers the newest record of a path when the context first uses it.
    private func noteUse(of path: Path) {
        guard let baseHistory else { return }
        let known = lock.withLock { seen.keys.contains(path) }
        guard !known else { return }
        let newest = baseHistory.latestRecord(at: path)?.timestamp
        lock.withLock {
            if !seen.keys.contains(path) { seen[path] = newest }
        }
    }

    /// The paths whose newest record changed since the context first used them, except
    /// those it wrote a mergeable state to: their changes merge with the database's (a
    /// counter's increments add up), so a write meanwhile is no conflict.
    private func conflictingPaths() -> [Path] {
        guard let history else { return [] }
        let (used, merged) = lock.withLock { (seen, Set(edits.lazy.filter(\.isMergeable).map(\.path))) }
        return used.compactMap { path, timestamp in
            merged.contains(path) || history.latestRecord(at: path)?.timestamp == timestamp ? nil : path
        }.sorted()
    }
}

/// A context's edits may be discarded until they are committed, and a commit may roll back
/// in the database.
extension EditingContext: RollbackTrackingDatabase {
    package var rollbackMark: RollbackMark? {
        let (discarded, edited) = lock.withLock { (discards, !edits.isEmpty) }
        let underlying = database.currentRollbackMark
        return RollbackMark(
            mayRollBack: true,
            holdsUncommittedWrites: edited || (underlying?.holdsUncommittedWrites ?? false),
            rollbacks: discarded &+ (underlying?.rollbacks ?? 0)
        )
    }
}

/// Why an editing context could not commit.
public enum EditingContextError: Error, CustomStringConvertible, Equatable, LocalizedError {

    /// The database changed these paths after the context first used them.
    case conflicts([Path])

    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .conflicts(let paths):
            "The database changed \(paths.count) path(s) the editing context also used: \(paths.map(\.description).joined(separator: ", ")). Nothing was committed."
        }
    }
}

extension Database {

    /// Creates an editing context that overlays this database: it sees database changes to
    /// paths it has not edited.
    ///
    /// ```swift
    /// let context = database.createEditingContext()
    /// let item: Item = context.create(id: 1)
    /// context.commitChanges()
    /// ```
    public func createEditingContext() -> EditingContext {
        EditingContext(database: self, reader: self)
    }
}

extension HistoryDatabase {

    /// Creates an editing context on a snapshot of this database taken now: database
    /// changes made afterwards stay invisible in the context.
    ///
    /// ```swift
    /// let context = database.createEditingContextWithCurrentState()
    /// ```
    public func createEditingContextWithCurrentState() -> EditingContext {
        let snapshot = view(at: clock.now())
        let clock = self.clock
        return EditingContext(database: self, reader: snapshot, advanceSnapshot: { snapshot.moveView(to: clock.now()) })
    }
}
