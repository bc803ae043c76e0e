extension AutomaticSync {

    /// What an ``AutomaticSync`` is doing (``state``) and where its replica stands
    /// (``replica``: pending count, last successful sync, last error, initial-sync
    /// progress), as one value a UI binds to. The replica's properties read through it:
    /// `status.pendingCount` is `status.replica.pendingCount`.
    ///
    /// ```swift
    /// for await status in sync.states {
    ///     if !status.isInitialSyncComplete, let progress = status.initialSyncProgress {
    ///         print("downloading \(Int(progress * 100)) %")
    ///     }
    ///     if case .retrying(_, _, let reason) = status.state { print("offline:", reason) }
    /// }
    /// ```
    @dynamicMemberLookup
    public struct Status: Hashable, Sendable, CustomStringConvertible {

        /// What the automatic sync is doing.
        public var state: State

        /// Where the replica stands (the same as ``AutomaticSync/replicaStatus`` at the
        /// time).
        public var replica: ReplicaStatus

        /// A status.
        public init(state: State, replica: ReplicaStatus) {
            self.state = state
            self.replica = replica
        }

        /// The replica's ``ReplicaStatus`` properties: `status.pendingCount`,
        /// `status.lastError`, `status.initialSyncProgress`, …
        public subscript<Value>(dynamicMember keyPath: KeyPath<ReplicaStatus, Value>) -> Value {
            replica[keyPath: keyPath]
        }

        /// The state, then the replica's status.
        public var description: String { "\(state); \(replica)" }
    }
}
