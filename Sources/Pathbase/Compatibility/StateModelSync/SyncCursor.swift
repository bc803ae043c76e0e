import Foundation

/// A position in a database's records: where the next request for updates should start.
///
/// Records are ordered by ``Timestamp`` (a hybrid logical clock reading), then by ``Path``.
/// Every response carries the cursor to send with the next request, so that no record is
/// missed — not when several writes share a millisecond, and not when the two sides' clocks
/// disagree:
///
/// ```swift
/// var cursor: SyncCursor? = nil
/// let request = try consumer.instanceStatusRequest(for: Item.self, after: cursor)
/// let result = try consumer.apply(instanceUpdates: try producer.process(instanceStatusRequest: request))
/// cursor = result.cursor // next time, only what changed after this
/// ```
///
/// A cursor compares records of the side that answered the request; keep one cursor per
/// producer.
public struct SyncCursor: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {

    /// The timestamp of the last record before the cursor.
    public var timestamp: Timestamp

    /// The path of the last record before the cursor, which orders records that share a
    /// timestamp.
    public var path: Path

    /// The position right after a record at a path and timestamp.
    public init(timestamp: Timestamp, path: Path) {
        self.timestamp = timestamp
        self.path = path
    }

    /// The position after every record with a timestamp up to and including `timestamp`.
    public init(after timestamp: Timestamp) {
        self.init(timestamp: timestamp, path: .last)
    }

    /// The position right after a record.
    public init(after record: Record) {
        self.init(timestamp: record.timestamp, path: record.path)
    }

    /// A cursor for a date: before every record written at or after `date`.
    ///
    /// Dates are coarser than timestamps, so a request after a date may deliver again the
    /// records at its very end; applying a record twice changes nothing. `nil` for a date
    /// before every possible record.
    public init?(date: Date) {
        // One microsecond of slack absorbs rounding between `Date` and microseconds.
        let (start, overflow) = Timestamp(latestAt: date).time.subtractingReportingOverflow(2)
        guard !overflow else { return nil }
        self.init(after: Timestamp(time: start, counter: .max, replica: .max))
    }

    /// The wall-clock time of the cursor's timestamp.
    public var date: Date { timestamp.date }

    /// Cursors order like the records they follow: by timestamp, then by path.
    public static func < (lhs: SyncCursor, rhs: SyncCursor) -> Bool {
        lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.path < rhs.path
    }

    /// Whether a record lies after the cursor.
    func precedes(_ record: Record) -> Bool {
        timestamp != record.timestamp ? timestamp < record.timestamp : path < record.path
    }

    /// The record position, as `after <path> @ <timestamp>`.
    public var description: String { "after \(path) @ \(timestamp)" }
}

extension Path {
    /// The path after every other path.
    static let last = Path(model: .max, instance: .max, property: .max)
}
