/// One of a replica's own records and where it stands with the sync server.
///
/// ```swift
/// for entry in replica.rejectedRecords() {
///     print(entry.key, entry.state) // rejected: "…5 minutes ahead of the server's clock"
///     try replica.retry(entry.key)  // or: try replica.discard(entry.key)
/// }
/// ```
public struct OutboxEntry: Hashable, Sendable, CustomStringConvertible {

    /// Where a record stands.
    public enum State: Hashable, Sendable, CustomStringConvertible {

        /// Not yet acknowledged by the server: the next push sends it.
        case pending

        /// The server holds it.
        case acknowledged

        /// The server refused it, for this reason. It stays listed until retried or
        /// discarded.
        case rejected(reason: String)

        public var description: String {
            switch self {
            case .pending: "pending"
            case .acknowledged: "acknowledged"
            case .rejected(let reason): "rejected: \(reason)"
            }
        }
    }

    /// The record.
    public var key: SyncRecord.Key

    /// Where it stands.
    public var state: State

    /// Creates an entry.
    public init(key: SyncRecord.Key, state: State) {
        self.key = key
        self.state = state
    }

    public var description: String { "\(key): \(state)" }
}
