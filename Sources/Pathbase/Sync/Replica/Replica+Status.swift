import Foundation

extension Replica {

    /// Where the replica stands now: pending count, last successful sync, last error and
    /// initial-sync progress (see ``monitor`` to follow it).
    ///
    /// ```swift
    /// print(replica.status) // pending 0, pulled 500 of 100000 (initial sync not complete), …
    /// ```
    public var status: ReplicaStatus { monitor.status }

    /// Counts the pending records again (a scan of the own records after the acknowledged
    /// watermark) and updates ``status``: after local writes, when no sync runs to count
    /// them. Pushes and syncs count them by themselves.
    ///
    /// ```swift
    /// note.text = "changed"
    /// replica.refreshStatus()
    /// print(replica.status.pendingCount) // 1
    /// ```
    public func refreshStatus() {
        let pending = Self.pendingCount(in: history)
        monitor.update { $0.pendingCount = pending }
    }

    /// The status kept in the database (the last pull's total, the last sync and error),
    /// with the pending records counted now.
    func storedStatus() -> ReplicaStatus {
        let error: String = history.get(ReplicaState.lastError) ?? ""
        return ReplicaStatus(
            pendingCount: Self.pendingCount(in: history),
            lastSuccessfulSync: history.get(ReplicaState.lastSuccessfulSync),
            lastError: error.isEmpty ? nil : error,
            pulledCount: pullCursor,
            serverTotal: history.get(ReplicaState.serverTotal),
            isInitialSyncComplete: history.get(ReplicaState.initialSyncComplete) ?? false)
    }

    private static func pendingCount(in history: any HistoryDatabase) -> Int {
        ReplicaStateSummary(of: history, pendingLimit: .max)?.pending ?? 0
    }

    /// What a pulled page changes in the status: the cursor, the server's total, and
    /// whether the pull reached the end for the first time.
    struct PullProgress {
        var cursor: Int64
        var total: Int64?
        var changedTotal: Bool
        var completesInitialSync: Bool

        /// Writes the total and the completion when they changed, in the page's batch.
        func store(in history: any HistoryDatabase) {
            if changedTotal, let total { history.set(total, for: ReplicaState.serverTotal) }
            if completesInitialSync { history.set(true, for: ReplicaState.initialSyncComplete) }
        }

        func apply(to status: inout ReplicaStatus) {
            status.pulledCount = cursor
            if let total { status.serverTotal = total }
            if completesInitialSync { status.isInitialSyncComplete = true }
        }
    }

    func pullProgress(after response: PullResponse, cursor: Int64) -> PullProgress {
        let current = monitor.status
        // An older server sends no total; the end of its records is still the end.
        let total = response.total.map { max($0, cursor) }
        return PullProgress(
            cursor: cursor, total: total, changedTotal: total != nil && total != current.serverTotal,
            completesInitialSync: !response.hasMore && !current.isInitialSyncComplete)
    }

    /// Notes a successful sync and clears the last error. The time is stored when the sync
    /// moved records, after an error, or when the stored one is an hour old: every stored
    /// time is a record that each push scans past, so an idle replica polling every minute
    /// adds at most one an hour (``ReplicaStatus/lastSuccessfulSync`` itself is exact).
    func noteSyncSucceeded(_ report: SyncReport) throws(ReplicaError) {
        let now = Date()
        let hadError = monitor.status.lastError != nil
        let stored: Date? = history.get(ReplicaState.lastSuccessfulSync)
        let storesTime = report.pushed > 0 || report.pulled > 0 || hadError || stored.map { now.timeIntervalSince($0) >= 3600 } ?? true
        if storesTime || hadError {
            try Replica.store(in: history) {
                if storesTime { history.set(now, for: ReplicaState.lastSuccessfulSync) }
                if hadError { history.set("", for: ReplicaState.lastError) }
            }
        }
        monitor.update {
            $0.lastSuccessfulSync = now
            $0.lastError = nil
        }
    }

    /// Keeps why a sync failed, in the status and, when it can be stored, in the database.
    func noteSyncFailed(_ error: any Error) {
        let reason = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
        // Stored once per reason: a retry loop failing the same way adds no records.
        if (history.get(ReplicaState.lastError) as String?) != reason {
            try? Replica.store(in: history) { history.set(reason, for: ReplicaState.lastError) }
        }
        monitor.update { $0.lastError = reason }
    }
}
