/// What one ``Replica/sync()`` moved: records pushed, acknowledged, rejected, pulled, and
/// the pull cursor it ended at.
///
/// ```swift
/// let report = try await replica.sync()
/// print("pushed \(report.pushed), pulled \(report.pulled), cursor \(report.cursor)")
/// ```
public struct SyncReport: Hashable, Sendable, CustomStringConvertible {

    /// Records sent to the server (retried ones included).
    public var pushed = 0

    /// Records the server acknowledged.
    public var acknowledged = 0

    /// Records the server refused (see ``Replica/rejectedRecords()``).
    public var rejected = 0

    /// Records received from the server and applied (newest wins per path).
    public var pulled = 0

    /// The server sequence number the replica has everything up to.
    public var cursor: Int64 = 0

    /// An empty report.
    public init() {}

    public var description: String {
        "pushed \(pushed) (acknowledged \(acknowledged), rejected \(rejected)), pulled \(pulled), cursor \(cursor)"
    }
}
