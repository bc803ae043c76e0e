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

    /// Creates a push request.
    public init(replica: UInt32, records: [SyncRecord]) {
        self.replica = replica
        self.records = records
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

    /// Creates a push response.
    public init(acknowledged: [SyncRecord.Key], rejected: [Rejection] = []) {
        self.acknowledged = acknowledged
        self.rejected = rejected
    }
}
