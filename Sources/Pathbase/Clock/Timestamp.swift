import Foundation

/// The time of a write: a hybrid logical clock reading.
///
/// A timestamp combines wall-clock time (microseconds since 1970), a counter that orders
/// writes within the same microsecond or while the wall clock lags behind, and the id of
/// the replica that wrote. Timestamps are totally ordered in that sequence, so "the newest
/// record wins" gives the same state on every replica, whatever order records arrive in.
///
/// ```swift
/// let clock = HybridLogicalClock(replica: 1)
/// let first = clock.now()
/// let second = clock.now()
/// assert(first < second)
/// ```
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {

    /// Wall-clock time in microseconds since 1 January 1970, possibly advanced by the clock
    /// to stay ahead of timestamps it has seen.
    public let time: Int64

    /// Orders timestamps with the same `time`.
    public let counter: UInt32

    /// The replica that made the write; breaks ties between replicas.
    public let replica: UInt32

    /// Creates a timestamp from its parts.
    public init(time: Int64, counter: UInt32 = 0, replica: UInt32 = 0) {
        self.time = time
        self.counter = counter
        self.replica = replica
    }

    /// The latest timestamp at or before a date: every write made at or before `date`
    /// compares less than or equal to it.
    public init(latestAt date: Date) {
        self.init(time: Timestamp.microseconds(of: date), counter: .max, replica: .max)
    }

    /// A timestamp earlier than every write.
    public static let zero = Timestamp(time: .min, counter: 0, replica: 0)

    /// A timestamp later than every write.
    public static let max = Timestamp(time: .max, counter: .max, replica: .max)

    /// The wall-clock part as a date.
    public var date: Date {
        Date(timeIntervalSince1970: Double(time) / 1_000_000)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        return lhs.replica < rhs.replica
    }

    /// The time in ISO 8601 with microseconds, then the counter and the replica:
    /// `2026-11-21T05:59:09.002113Z#0@17`.
    public var description: String {
        let (seconds, micros) = time.quotientAndRemainder(dividingBy: 1_000_000)
        let whole = micros < 0 ? seconds - 1 : seconds
        let fraction = micros < 0 ? micros + 1_000_000 : micros
        let base = Date(timeIntervalSince1970: Double(whole)).formatted(.iso8601).dropLast() // drop "Z"
        let digits = String(fraction)
        return "\(base).\(String(repeating: "0", count: 6 - digits.count))\(digits)Z#\(counter)@\(replica)"
    }

    static func microseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
        if value >= Double(Int64.max) { return .max }
        if value <= Double(Int64.min) { return .min }
        return Int64(value)
    }

    // Encoded as the compact array [time, counter, replica]. It is part of the sync protocol,
    // and `PullResponse.sortedKeysJSON()` writes the same array without the encoder
    // (PullResponseJSONTests compare the two): change both or neither.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        time = try container.decode(Int64.self)
        counter = try container.decode(UInt32.self)
        replica = try container.decode(UInt32.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(time)
        try container.encode(counter)
        try container.encode(replica)
    }
}
