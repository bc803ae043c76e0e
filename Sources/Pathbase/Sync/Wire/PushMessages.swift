/// A replica's records for a sync server: one bounded batch of its outbox.
///
/// ```swift
/// let request = PushRequest(replica: replica.id, records: [try SyncRecord(record)])
/// let response = try await transport.push(request)
/// ```
///
/// Pushing is idempotent: the server stores each record once, keyed by path and
/// timestamp, so a retried or duplicated request changes nothing and is acknowledged again.
public struct PushRequest: Codable, Hashable, Sendable {

    /// The id of the replica that wrote the records (see ``Replica/id``).
    public var replica: UInt32

    /// The records, oldest first.
    public var records: [SyncRecord]

    /// How far the server has answered the replica's own records, by the replica's account,
    /// so that the server can tell a file that is not the one it has been syncing with under
    /// this id (a copy, a restored backup); `nil` (a client before 2026-12-01): not checked.
    public var continuity: Continuity?

    /// What a replica claims of its own records on the server: see `SyncServer`'s push in
    /// `PathbaseServer` for the rule.
    ///
    /// ```swift
    /// let request = PushRequest(replica: 7, records: records, continuity: .init(acknowledgedThrough: watermark))
    /// ```
    public struct Continuity: Codable, Hashable, Sendable {

        /// The newest timestamp through which every record of the replica was answered
        /// (``Replica``'s outbox watermark), `nil` before the first answer; or the start of
        /// the replica's history when that is later: a record pruned before it (a database
        /// pruned directly, past its outbox) can no longer be sent, and its absence from a
        /// push says nothing of another file.
        public var acknowledgedThrough: Timestamp?

        /// Creates a claim.
        public init(acknowledgedThrough: Timestamp?) {
            self.acknowledgedThrough = acknowledgedThrough
        }
    }

    /// Creates a push request.
    public init(replica: UInt32, records: [SyncRecord], continuity: Continuity? = nil) {
        self.replica = replica
        self.records = records
        self.continuity = continuity
    }
}

/// A server's answer to a ``PushRequest``: for each record, stored or rejected with a reason.
///
/// ```swift
/// for rejection in response.rejected {
///     print(rejection.key, rejection.reason)
/// }
/// ```
///
/// A record the response names in neither list stays pending and is pushed again.
public struct PushResponse: Codable, Hashable, Sendable {

    /// A record the server refused, and why, in words to show to the user.
    public struct Rejection: Codable, Hashable, Sendable {

        /// The refused record.
        public var key: SyncRecord.Key

        /// Why, for example that its clock is too far ahead of the server's.
        public var reason: String

        /// Creates a rejection.
        public init(key: SyncRecord.Key, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// The records the server holds: stored now or by an earlier push.
    public var acknowledged: [SyncRecord.Key]

    /// The records the server refused.
    public var rejected: [Rejection]

    /// Why the server refused the whole push, storing none of it: the server holds records
    /// under the replica's id that this push does not continue from — another file (a copy,
    /// a restored backup) writes under the id. A ``Replica`` takes a new id and pushes again;
    /// `nil` for a push the server took.
    public var forked: String?

    /// Creates a push response.
    public init(acknowledged: [SyncRecord.Key], rejected: [Rejection] = [], forked: String? = nil) {
        self.acknowledged = acknowledged
        self.rejected = rejected
        self.forked = forked
    }
}
