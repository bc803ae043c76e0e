import Foundation

/// What `GET /v1/metrics` answers: request counts, stored records and accounts, and how far
/// each account's replicas are behind.
///
/// ```swift
/// let report = try await server.metrics()
/// for account in report.accounts where (account.lag ?? 0) > 10_000 {
///     print("\(account.name) is \(account.lag ?? 0) records behind")
/// }
/// ```
///
/// Lag is counted in records: the account's latest sequence number minus the cursor a
/// replica last pulled to (0 when it is up to date). Request counts and pulled cursors are
/// counted since the server started; records and accounts are what the store holds.
public struct MetricsReport: Codable, Hashable, Sendable {

    /// Requests answered since the server started, by route (`"POST /v1/push"`, or
    /// `"other"` for paths the server does not serve) and status class (`"2xx"`, `"4xx"` …).
    public var requests: [String: [String: Int]]

    /// The number of accounts.
    public var accountCount: Int

    /// The number of records the store holds, over all accounts: after a compaction, fewer
    /// than the records the server was given.
    public var recordsStored: Int64

    /// Each account, in account order.
    public var accounts: [Account]

    /// One account's records and its replicas' lag.
    public struct Account: Codable, Hashable, Sendable {

        /// The account's name.
        public var name: String

        /// The sequence number of its latest record: the cursor of a replica that has all.
        public var latestCursor: Int64

        /// The number of its records the store holds: `latestCursor` less those compaction
        /// removed.
        public var recordsStored: Int64

        /// The largest lag of its replicas, or `nil` when none has pulled since the server
        /// started.
        public var lag: Int64?

        /// Each replica that pulled since the server started, by replica id.
        public var replicas: [Replica]
    }

    /// Where one replica stands.
    public struct Replica: Codable, Hashable, Sendable {

        /// The replica's id.
        public var replica: UInt32

        /// The cursor it last pulled to.
        public var pulledCursor: Int64

        /// How many records it has not pulled yet.
        public var lag: Int64
    }
}
