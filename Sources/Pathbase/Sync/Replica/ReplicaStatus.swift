import Foundation

/// Where a ``Replica`` stands, as a UI shows it: records waiting to be pushed, the last
/// successful sync, the last error, and how far the first (initial) sync has come.
///
/// ```swift
/// let status = replica.status
/// if let progress = status.initialSyncProgress, !status.isInitialSyncComplete {
///     print("downloading: \(Int(progress * 100)) %")
/// }
/// print("\(status.pendingCount) changes not yet on the server")
/// ```
///
/// Read it from ``Replica/status`` or follow it through ``ReplicaMonitor`` (an async
/// sequence of states, and `Observable`).
public struct ReplicaStatus: Hashable, Sendable, CustomStringConvertible {

    /// Own records not yet acknowledged or rejected by the server (retried ones included),
    /// as of the last push, sync or ``Replica/refreshStatus()``.
    public var pendingCount: Int

    /// When the last ``Replica/sync()`` succeeded, or `nil` before the first.
    public var lastSuccessfulSync: Date?

    /// Why the last ``Replica/sync()`` failed, or `nil` when it succeeded (or none ran).
    public var lastError: String?

    /// Records pulled so far: the server sequence number of the last pulled record (the
    /// pull cursor), so records this replica pushed itself count too, as in ``serverTotal``,
    /// and so do records the server compacted away before they were pulled.
    public var pulledCount: Int64

    /// How many records the server held for the account at the last pull page, or `nil`
    /// before the first pull or from a server that does not say.
    public var serverTotal: Int64?

    /// Whether a pull has reached the end of the server's records once. It becomes `true`
    /// once and stays so.
    public var isInitialSyncComplete: Bool

    /// A status.
    public init(pendingCount: Int = 0, lastSuccessfulSync: Date? = nil, lastError: String? = nil, pulledCount: Int64 = 0, serverTotal: Int64? = nil, isInitialSyncComplete: Bool = false) {
        self.pendingCount = pendingCount
        self.lastSuccessfulSync = lastSuccessfulSync
        self.lastError = lastError
        self.pulledCount = pulledCount
        self.serverTotal = serverTotal
        self.isInitialSyncComplete = isInitialSyncComplete
    }

    /// The initial sync's progress from 0 to 1: ``pulledCount`` of ``serverTotal``; 1 once
    /// ``isInitialSyncComplete``, `nil` while the total is unknown.
    public var initialSyncProgress: Double? {
        if isInitialSyncComplete { return 1 }
        guard let serverTotal else { return nil }
        guard serverTotal > 0 else { return 1 }
        return min(1, Double(pulledCount) / Double(serverTotal))
    }

    /// One line: pending, pulled of total, last sync and last error.
    public var description: String {
        var text = "pending \(pendingCount), pulled \(pulledCount)"
        if let serverTotal { text += " of \(serverTotal)" }
        text += isInitialSyncComplete ? " (initial sync complete)" : " (initial sync not complete)"
        if let lastSuccessfulSync { text += ", last sync \(lastSuccessfulSync.formatted(.iso8601))" } else { text += ", never synced" }
        if let lastError { text += ", last error: \(lastError)" }
        return text
    }
}
