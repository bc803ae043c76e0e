/// A live line from a sync server that says when an account has new records, so that an
/// ``AutomaticSync`` pulls at once instead of on its next interval.
///
/// ```swift
/// let live = WebSocketLiveUpdates(server: url, token: token) // PathbaseLiveSync
/// let sync = AutomaticSync(replica: replica, interval: .seconds(60), live: live)
/// ```
///
/// A notice carries only the account's latest cursor, never records: the replica still
/// pulls them through its ``SyncTransport``. While the line is down, the automatic sync
/// polls on its interval and reconnects with its retry policy.
public protocol LiveUpdates: Sendable {

    /// Connects, calls `connected` once the server listens for this account (every append
    /// after it gets a notice), then `changed` with the account's latest cursor each time
    /// records arrive; returns or
    /// throws when the connection ends (closed, dropped, refused).
    func listen(connected: @escaping @Sendable () -> Void, changed: @escaping @Sendable (LiveNotice) -> Void) async throws
}

/// What a sync server sends a live client when its account's log grows.
///
/// ```swift
/// let notice = try JSONDecoder().decode(LiveNotice.self, from: frame) // {"cursor":1042}
/// ```
public struct LiveNotice: Codable, Hashable, Sendable {

    /// The sequence number of the account's latest record.
    public var cursor: Int64

    /// A notice that the account's log reached `cursor`.
    public init(cursor: Int64) { self.cursor = cursor }
}
