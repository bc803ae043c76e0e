/// A database with undo and redo of its changes.
///
/// Wrap a database, use the wrapper for models and contexts, and undo whole changes — a
/// single set, a batch, or an editing context's commit:
///
/// ```swift
/// let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase(), depth: 50)
/// let item = Item.create(in: database, id: 1, title: "Draft")
/// item.title = "Final"
/// database.undo() // title is "Draft" again
/// database.redo() // title is "Final" again
/// ```
///
/// Undo does not remove records: it writes the earlier values as new records, so history
/// stays complete and synchronization carries the undo like any other change. A property
/// with a ``MergePolicy`` gets the change undone instead of its earlier state: undoing
/// `likes += 1` decrements the counter, keeping the increments other replicas made since. Where a
/// path had no value before the change, undo writes ``NoValue`` (read as "nothing stored")
/// or, for an instance status, ``InstanceStatus/notCreated``. Any new change clears the
/// redo steps. Writes with explicit timestamps (`set(_:for:timestamp:)`, as synchronization
/// uses) are passed through and are not undoable steps; inside a batch that throws they
/// are taken back with the batch's other writes. The same holds for a Codable
/// collection's registration and id counter: undoing a save leaves the collection's name
/// and the ids handed out.
///
/// It has the capabilities of the wrapped database (see ``DatabaseWrapper``), and always
/// batches. Over a database that keeps no history undo still works: the value before a
/// change is the one read, as the written type, just before it; such an undoable database
/// has no history either.
///
/// Safe to use from any thread; undo and redo apply to the most recent steps, whichever
/// thread made them.
public final class UndoableDatabase<Base: Database>: DatabaseWrapper, BatchDatabase, @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock`; `group` changes
    // only while `batchLock` is held too, so `inBatch` reads it holding `batchLock` alone.

    /// The database changes are written to.
    public let base: Base

    /// How many steps can be undone at most; older steps are forgotten.
    public let depth: Int

    private struct Change {
        let path: Path
        let before: (any DatabaseValue)?
        let after: any DatabaseValue
        /// `false` for a write with an explicit timestamp or of a collection's bookkeeping:
        /// no undo step, but a batch that throws takes it back like the others.
        var undoable = true
        /// The record the write added, which a batch that throws withdraws (over a
        /// database without batches that can withdraw records).
        var record: SyncRecord.Key?
    }

    private let lock = Lock()
    /// Held for a whole batch, so that other threads' writes wait instead of joining it.
    private let batchLock = RecursiveLock()
    private var undoSteps: [[Change]] = []
    private var redoSteps: [[Change]] = []
    /// Changes of the batch in progress, if any, and its nesting depth.
    private var group: [Change]?
    private var groupDepth = 0
    /// Whether a batch is running. `group` changes only while `batchLock` is held, so a
    /// thread that holds it reads this without taking `lock` (a write outside batches takes
    /// `lock` once).
    private var inBatch: Bool { group != nil }
    /// Where in `group` each running batch's changes begin, outermost first.
    private var groupStarts: [Int] = []
    /// How many batches took their writes back (a wrapped database without batches).
    private var takenBack: UInt64 = 0
    private var reportError: @Sendable (any Error) -> Void = { error in
        StandardError.write("Pathbase UndoableDatabase: undo or redo failed, nothing was written: \(error)")
    }

    /// The wrapped database when it keeps history, where the value before a change is its
    /// newest record; without it, the value before a change is read as the current value.
    private let history: (any HistoryDatabase)?

    /// Whether the wrapped database's batches take back their writes when they throw.
    private let runsBatches: Bool

    /// Over a database without batches that can remove records (an in-memory history
    /// database, through a cache or observers): a batch that throws withdraws its records.
    /// Without it, it writes the earlier values again.
    private let withdrawal: (any RecordWithdrawingDatabase)?

    /// Wraps a database; `depth` (at least 1) limits how many steps are kept.
    public init(wrapping base: Base, depth: Int = 100) {
        self.base = base
        self.depth = max(1, depth)
        self.history = base.historyDatabase
        self.runsBatches = base.batchDatabase != nil
        self.withdrawal = runsBatches ? nil : base.recordWithdrawingDatabase
    }

    /// Whether there is a change to undo.
    public var canUndo: Bool { lock.withLock { !undoSteps.isEmpty } }

    /// Whether there is an undone change to redo.
    public var canRedo: Bool { lock.withLock { !redoSteps.isEmpty } }

    /// Reverts the most recent change by writing the values from before it.
    ///
    /// ```swift
    /// database.undo()
    /// ```
    ///
    /// Returns `false` if there was nothing to undo, or if the wrapped database could not
    /// store the batch: then nothing was written, the step can still be undone, and the
    /// error goes to ``errorHandler`` (by default printed to standard error). Use
    /// ``performUndo()`` to get the error thrown instead.
    @discardableResult
    public func undo() -> Bool {
        reportingFailure { try performUndo() }
    }

    /// Reverts the most recent change like ``undo()``, but throws the wrapped database's
    /// failure to store it.
    ///
    /// ```swift
    /// let undone = try database.performUndo()
    /// ```
    ///
    /// Returns `false` if there was nothing to undo. When it throws, nothing was written and
    /// the step can still be undone.
    @discardableResult
    public func performUndo() throws -> Bool {
        guard let step = lock.withLock({ undoSteps.popLast() }) else { return false }
        do {
            try writeInOneBatch(step.reversed().map { ($0.path, $0.before ?? Self.absentValue(for: $0.path), $0.after) })
        } catch {
            lock.withLock { undoSteps.append(step) }
            throw error
        }
        lock.withLock { redoSteps.append(step) }
        return true
    }

    /// Re-applies the most recently undone change.
    ///
    /// ```swift
    /// database.redo()
    /// ```
    ///
    /// Returns `false` if there was nothing to redo, or if the wrapped database could not
    /// store the batch: then nothing was written, the step can still be redone, and the
    /// error goes to ``errorHandler``. Use ``performRedo()`` to get the error thrown instead.
    @discardableResult
    public func redo() -> Bool {
        reportingFailure { try performRedo() }
    }

    /// Re-applies the most recently undone change like ``redo()``, but throws the wrapped
    /// database's failure to store it.
    ///
    /// ```swift
    /// let redone = try database.performRedo()
    /// ```
    ///
    /// Returns `false` if there was nothing to redo. When it throws, nothing was written and
    /// the step can still be redone.
    @discardableResult
    public func performRedo() throws -> Bool {
        guard let step = lock.withLock({ redoSteps.popLast() }) else { return false }
        do {
            try writeInOneBatch(step.map { ($0.path, $0.after, $0.before) })
        } catch {
            lock.withLock { redoSteps.append(step) }
            throw error
        }
        lock.withLock { undoSteps.append(step) }
        return true
    }

    /// Receives the failures of ``undo()`` and ``redo()``, which can't throw.
    ///
    /// ```swift
    /// database.errorHandler = { error in logger.error("undo failed: \(error)") }
    /// ```
    ///
    /// By default the error is printed to standard error. Called on the undoing thread.
    public var errorHandler: @Sendable (any Error) -> Void {
        get { lock.withLock { reportError } }
        set { lock.withLock { reportError = newValue } }
    }

    /// Runs a throwing step; a failure goes to ``errorHandler`` and reads as `false`.
    private func reportingFailure(_ step: () throws -> Bool) -> Bool {
        do {
            return try step()
        } catch {
            errorHandler(error)
            return false
        }
    }

    /// Forgets every undo and redo step.
    public func removeAllSteps() {
        lock.withLock {
            undoSteps = []
            redoSteps = []
        }
    }

    // MARK: Batches

    /// Runs `body` as one undoable step, in one batch of the wrapped database when it is a
    /// ``BatchDatabase``.
    ///
    /// If `body` throws, its writes are taken back: by the wrapped database's batch; over an
    /// ``InMemoryHistoryDatabase`` (also through a ``CachedDatabase`` or an
    /// ``ObservedDatabase``), by removing the records it wrote, so that nothing of it is
    /// left to synchronize; over another database without batches, by writing the earlier
    /// values again. Writes from other threads wait until the batch ends.
    public func batch<Result>(_ body: () throws -> Result) throws -> Result {
        try batchLock.withLock { try groupedBatch(body) }
    }

    private func groupedBatch<Result>(_ body: () throws -> Result) throws -> Result {
        lock.withLock {
            if groupDepth == 0 { group = [] }
            groupDepth += 1
            groupStarts.append(group?.count ?? 0)
        }
        var succeeded = false
        defer {
            lock.withLock {
                groupStarts.removeLast()
                groupDepth -= 1
                if groupDepth == 0 {
                    if succeeded, let changes = group?.filter(\.undoable), !changes.isEmpty { record(changes) }
                    group = nil
                }
            }
        }
        let result: Result
        do {
            result = try runsBatches ? base.inBatchIfSupported(body) : body()
        } catch {
            takeBackBatchWrites()
            throw error
        }
        succeeded = true
        return result
    }

    /// The running batch (outermost or nested) threw: its changes leave the undo step —
    /// the wrapped database's batch took them back; or their records are withdrawn; or, for
    /// a wrapped database that can do neither, the values from before them are written again.
    private func takeBackBatchWrites() {
        let changes: [Change] = lock.withLock {
            let start = groupStarts.last ?? 0
            guard let all = group, start < all.count else { return [] }
            group?.removeSubrange(start...)
            if runsBatches { return [] }
            takenBack &+= 1
            return Array(all[start...])
        }
        if let withdrawal {
            withdrawal.withdraw(changes.compactMap(\.record))
            return
        }
        for change in changes.reversed() {
            base.set(erased: change.before ?? Self.absentValue(for: change.path), for: change.path)
        }
    }

    // MARK: Writes

    /// Writes a value as an undoable change (part of the current batch, if any).
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        batchLock.withLock {
            let before: (any DatabaseValue)? =
                history.map { $0.latestRecord(at: path)?.value }
                ?? (base.get(path) as Value?).map { $0 as any DatabaseValue }
            var added: SyncRecord.Key?
            if let withdrawal, inBatch {
                // Stamped here, so that a batch that throws knows which record to withdraw.
                let timestamp = withdrawal.clock.now()
                withdrawal.set(value, for: path, timestamp: timestamp)
                added = SyncRecord.Key(path: path, timestamp: timestamp)
            } else {
                base.set(value, for: path)
            }
            // A collection's registration and id counter are bookkeeping, not the app's
            // data: undo leaves them (undoing a first save would unregister the collection
            // on every replica that synchronizes), a batch that throws still takes them back.
            let change = Change(path: path, before: before, after: value, undoable: !CollectionKeys.isBookkeeping(path.model), record: added)
            lock.withLock {
                if group != nil {
                    group?.append(change)
                } else if change.undoable {
                    record([change])
                }
            }
        }
    }

    // MARK: Steps

    /// Adds a step; call with the lock held.
    private func record(_ changes: [Change]) {
        undoSteps.append(changes)
        if undoSteps.count > depth { undoSteps.removeFirst(undoSteps.count - depth) }
        redoSteps = []
    }

    /// Writes values as new records, all or nothing where the database supports batches.
    ///
    /// Each write is a change from the value the step holds before it (its undo or redo):
    /// a mergeable state (a property with a ``MergePolicy``) lands as that change on the
    /// current state, so undoing an increment decrements whatever the counter holds now.
    private func writeInOneBatch(_ writes: [(path: Path, value: any DatabaseValue, changedFrom: (any DatabaseValue)?)]) throws {
        try base.inBatchIfSupported {
            for write in writes {
                guard let value = base.landedValue(write.value, changedFrom: write.changedFrom, at: write.path) else { continue }
                base.set(erased: value, for: write.path)
            }
        }
    }

    private static func absentValue(for path: Path) -> any DatabaseValue {
        path.isStatus ? InstanceStatus.notCreated : NoValue()
    }
}

/// Writes with explicit timestamps — synchronization's — pass through and are not undoable
/// steps.
extension UndoableDatabase: HistoryDatabase where Base: HistoryDatabase {

    /// Passes the write through; not an undoable step. Inside a batch it is still part of
    /// the batch: over a database without batches, a batch that throws takes it back as it
    /// does the batch's other writes (a record that was already stored stays). Writes from
    /// other threads wait until a running batch ends.
    public func set<Value: DatabaseValue>(_ value: Value, for path: Path, timestamp: Timestamp) {
        batchLock.withLock {
            let takenBackHere = !runsBatches && inBatch
            let before = takenBackHere && withdrawal == nil ? base.latestRecord(at: path)?.value : nil
            let isNew = takenBackHere && withdrawal.map { !$0.holdsRecord(at: path, timestamp: timestamp) } == true
            base.set(value, for: path, timestamp: timestamp)
            guard takenBackHere else { return }
            let added = isNew ? SyncRecord.Key(path: path, timestamp: timestamp) : nil
            lock.withLock { group?.append(Change(path: path, before: before, after: value, undoable: false, record: added)) }
        }
    }
}

extension UndoableDatabase: PrunableHistoryDatabase where Base: PrunableHistoryDatabase {}

/// A batch that throws takes its writes back: in the wrapped database's batch, or here.
extension UndoableDatabase: RollbackTrackingDatabase {
    package var rollbackMark: RollbackMark? {
        if runsBatches { return base.currentRollbackMark }
        return lock.withLock { RollbackMark(mayRollBack: groupDepth > 0, rollbacks: takenBack) }
    }
}
