import Pathbase

/// A ``SyncServerStore`` that compacts an account's log, so that a new replica's initial
/// sync costs what the account holds now, not everything ever written to it.
///
/// ```swift
/// // Keep the latest 10 000 records of each account whole; compact what came before.
/// let report = try await store.compactAll(keepingWhole: 10_000)
/// print(report.removed)
/// ```
///
/// Compaction removes a record when a record of the same path **written by the same
/// replica** (the replica of its timestamp) with a newer timestamp is numbered up to the
/// account's *horizon*. Up to the horizon the log keeps, per path and writer, the newest
/// record; after it the log stays whole. A pull from a cursor before the horizon therefore
/// receives the newest record of each path (deletions included: an instance's status is a
/// path like any other) and then the log after the horizon; a replica whose cursor is past
/// the horizon, nearly caught up, receives every record as before.
///
/// Why per writer, and not only the newest record per path: the server never reads values,
/// and a property with a merge policy (`.counter`, `.union`, `.max`, `.min`) stores states
/// that two replicas may write concurrently, each lacking the other's contribution until a
/// replica writes their join. Each replica's newest state includes its own earlier ones, so
/// keeping the newest per writer keeps every contribution; for newest-wins properties the
/// newest record of the path is among them, and wins on every replica as before.
///
/// Compaction runs in steps of a bounded number of records, each its own short
/// transaction, and is safe while pushes and pulls run: it never removes a record that no
/// kept record supersedes, so a reader moving through the log receives, for each removed
/// record, a newer one of the same writer (before or after its cursor). Sequence numbers
/// are never reused: after compaction the log has gaps. A record pushed again after
/// compaction removed it (a retried push whose answer was lost) is stored again, at the
/// end of the log; replicas apply it as the older record it is.
public protocol CompactingStore: SyncServerStore {

    /// The sequence number through which an account's log is compacted, 0 before the first
    /// compaction.
    func compactionHorizon(of account: AccountID) async throws -> Int64

    /// Compacts the records numbered after the account's horizon, at most `batchSize` of them
    /// and none after `end` or after the account's latest record, in one transaction, and
    /// moves the horizon past them.
    ///
    /// ``compact(_:through:batchSize:)`` calls it until the horizon reaches `end`.
    func compactStep(of account: AccountID, through end: Int64, batchSize: Int) async throws -> CompactionStep
}

/// What one step of compaction did: see ``CompactingStore/compactStep(of:through:batchSize:)``.
public struct CompactionStep: Hashable, Sendable {

    /// The account's horizon after the step.
    public var horizon: Int64

    /// How many records the step removed.
    public var removed: Int

    /// A step's outcome.
    public init(horizon: Int64, removed: Int) {
        self.horizon = horizon
        self.removed = removed
    }
}

/// What a compaction of every account did: see ``CompactingStore/compactAll(keepingWhole:batchSize:)``.
public struct CompactionReport: Hashable, Sendable {

    /// How many accounts had records to compact.
    public var accounts: Int

    /// How many records were removed.
    public var removed: Int

    /// A report.
    public init(accounts: Int, removed: Int) {
        self.accounts = accounts
        self.removed = removed
    }
}

extension CompactingStore {

    /// Compacts an account's log through `horizon` (at most its latest record), in steps of
    /// `batchSize` records; returns how many records were removed.
    ///
    /// ```swift
    /// let removed = try await store.compact(account, through: latest - 10_000)
    /// ```
    @discardableResult
    public func compact(_ account: AccountID, through horizon: Int64, batchSize: Int = 1000) async throws -> Int {
        var removed = 0
        var reached = try await compactionHorizon(of: account)
        while reached < horizon {
            let step = try await compactStep(of: account, through: horizon, batchSize: max(1, batchSize))
            removed += step.removed
            // No progress: the horizon reached the account's latest record.
            guard step.horizon > reached else { break }
            reached = step.horizon
        }
        return removed
    }

    /// Compacts every account's log, leaving its latest `keepingWhole` records whole: the
    /// records a replica that is nearly caught up still pulls one by one.
    ///
    /// ```swift
    /// let report = try await store.compactAll(keepingWhole: 10_000)
    /// ```
    public func compactAll(keepingWhole: Int64, batchSize: Int = 1000) async throws -> CompactionReport {
        var report = CompactionReport(accounts: 0, removed: 0)
        for account in try await accountSummaries() {
            let (horizon, overflow) = account.latestSequence.subtractingReportingOverflow(max(0, keepingWhole))
            guard !overflow, horizon > 0, try await compactionHorizon(of: account.id) < horizon else { continue }
            report.accounts += 1
            report.removed += try await compact(account.id, through: horizon, batchSize: batchSize)
        }
        return report
    }
}
