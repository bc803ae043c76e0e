/// A replica's request for the records a sync server received after a cursor.
///
/// ```swift
/// let response = try await transport.pull(PullRequest(after: 0, limit: 500))
/// ```
///
/// The cursor is a sequence number the server assigned (0 before the first record), not a
/// date: a record that reaches the server late with an old timestamp still comes after
/// every cursor handed out before it arrived.
public struct PullRequest: Codable, Hashable, Sendable {

    /// The server sequence number of the last record the replica has.
    public var after: Int64

    /// The most records to return; the server may return fewer.
    public var limit: Int

    /// The id of the pulling replica (see ``Replica/id``), or `nil`. The server only uses it
    /// to report how far behind each replica is (its metrics); omitted from the JSON when
    /// `nil`, so older clients keep working.
    public var replica: UInt32?

    /// Creates a pull request.
    public init(after: Int64, limit: Int, replica: UInt32? = nil) {
        self.after = after
        self.limit = limit
        self.replica = replica
    }
}

/// One page of records from a sync server, in the order the server received them.
///
/// ```swift
/// var cursor: Int64 = 0
/// repeat {
///     let page = try await transport.pull(PullRequest(after: cursor, limit: 500))
///     cursor = page.cursor
/// } while page.hasMore
/// ```
public struct PullResponse: Codable, Hashable, Sendable {

    /// The records after the request's cursor, at most its limit.
    public var records: [SyncRecord]

    /// The sequence number of the last record in this page: the cursor of the next request.
    public var cursor: Int64

    /// Whether the server holds records after ``cursor``.
    public var hasMore: Bool

    /// The sequence number of the account's latest record when the server answered (how
    /// many records it was given; a compacted log holds fewer, and a cursor skips the
    /// gaps), or `nil` from a server that does not say:
    /// a replica's initial-sync progress is ``cursor`` of `total` (see ``ReplicaStatus``).
    /// Omitted from the JSON when `nil`, and ignored by older clients, so old and new
    /// servers and clients work together.
    public var total: Int64?

    /// Creates a pull response.
    public init(records: [SyncRecord], cursor: Int64, hasMore: Bool, total: Int64? = nil) {
        self.records = records
        self.cursor = cursor
        self.hasMore = hasMore
        self.total = total
    }
}
