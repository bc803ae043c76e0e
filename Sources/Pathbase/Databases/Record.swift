/// One write: a value stored at a path at a timestamp.
///
/// History-keeping databases keep every record; the current value of a path is its newest
/// record. Records are what history views, undo and synchronization work on.
///
/// ```swift
/// for record in database.records(after: lastSeen) {
///     print(record.path, record.timestamp, record.value)
/// }
/// ```
public struct Record: CustomStringConvertible {

    /// Where the value was written.
    public var path: Path

    /// When it was written.
    public var timestamp: Timestamp

    /// The written value, of the type it was written with.
    public var value: any DatabaseValue

    /// Creates a record.
    public init(path: Path, timestamp: Timestamp, value: any DatabaseValue) {
        self.path = path
        self.timestamp = timestamp
        self.value = value
    }

    public var description: String { "\(path) @ \(timestamp): \(value)" }

    /// Records order by timestamp, then path: the order in which they were written.
    static func chronological(_ lhs: Record, _ rhs: Record) -> Bool {
        lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.path < rhs.path
    }
}
