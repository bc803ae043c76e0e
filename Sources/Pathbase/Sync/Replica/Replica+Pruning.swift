/// Pruning a replica's history without losing writes (issues 15 and 49): a record the
/// server has not acknowledged may be the only copy of that write, so pruning leaves it.
extension Replica {

    /// The latest moment the database's history may be pruned to without removing a record
    /// the server has not answered, or `nil` while nothing may be pruned (no push has found
    /// records yet).
    ///
    /// ```swift
    /// if let limit = replica.pruningLimit { print("history may be pruned up to \(limit)") }
    /// ```
    ///
    /// It is the acknowledged watermark (every own record up to it was answered by the
    /// server), moved back before the oldest rejected or retried record (a rejected record
    /// stays until it is retried or discarded) and before the oldest imported record still
    /// to push. Pruning keeps every record after the moment it prunes to, so these stay.
    /// Reads three values of the replica's state; scans no records.
    public var pruningLimit: Timestamp? {
        ReplicaState.pruningLimit(in: history)
    }

    /// Prunes the database's history to `timestamp`, or to ``pruningLimit`` if that is
    /// earlier, so that no record the server has not answered is removed; returns the moment
    /// pruned to, or `nil` when nothing may be pruned yet (``pruningLimit`` is `nil`) or the
    /// database cannot prune (it is not a ``PrunableHistoryDatabase``).
    ///
    /// ```swift
    /// try await replica.sync()
    /// let lastMonth = Timestamp(latestAt: Date().addingTimeInterval(-30 * 86400))
    /// if let start = try replica.prune(before: lastMonth) { print("history starts at \(start)") }
    /// ```
    ///
    /// For every path the newest record at or before that moment stays, and every later
    /// one; ``HistoryDatabase/historyStart`` moves to it, and a ``HistoryView`` of an
    /// earlier moment shows an empty database (``HistoryView/isBeforeHistoryStart``).
    /// Pruning the database directly (``PrunableHistoryDatabase/prune(before:)``) does not
    /// look at the outbox: a superseded record not yet pushed would never reach the server.
    /// Throws ``ReplicaError/storageFailed(_:)`` when the database fails to prune.
    @discardableResult
    public func prune(before timestamp: Timestamp) throws(ReplicaError) -> Timestamp? {
        guard let prunable = database.prunableDatabase, let limit = pruningLimit else { return nil }
        let target = min(timestamp, limit)
        do {
            try prunable.prune(before: target)
        } catch {
            throw .storageFailed(String(describing: error))
        }
        return target
    }
}

extension ReplicaState {

    /// ``Replica/pruningLimit`` of the replica whose state `history` holds.
    static func pruningLimit(in history: any HistoryDatabase) -> Timestamp? {
        guard let acknowledged: Timestamp = history.get(Self.acknowledgedThrough) else { return nil }
        var limit = acknowledged
        let answeredOutOfOrder: [OutboxException] = history.get(Self.exceptions) ?? []
        for exception in answeredOutOfOrder where exception.key.timestamp <= limit {
            limit = Self.moment(before: exception.key.timestamp)
        }
        let toPush: [ImportedRange] = history.get(Self.imported) ?? []
        for range in toPush where range.from <= limit {
            limit = Self.moment(before: range.from)
        }
        return limit
    }

    /// A moment strictly before `timestamp`: the last of the previous microsecond.
    static func moment(before timestamp: Timestamp) -> Timestamp {
        guard timestamp.time > .min else { return Timestamp(time: .min) }
        return Timestamp(time: timestamp.time - 1, counter: .max, replica: .max)
    }
}
