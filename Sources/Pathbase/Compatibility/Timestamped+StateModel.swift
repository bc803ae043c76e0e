import Foundation

extension Timestamped {

    /// StateModel's `Timestamped(value:date:)`: a value written at a date, stamped as
    /// StateModel stamped writes (that microsecond, counter 0, replica 0).
    ///
    /// ```swift
    /// return Timestamped(value: value, date: entry.date)
    /// ```
    @available(*, deprecated, message: "Pathbase stamps values with a Timestamp: use Timestamped(value:timestamp:)")
    public init(value: Value, date: Date) {
        self.init(value: value, timestamp: Timestamp(writtenAt: date))
    }

    /// StateModel's `date`: when the value was written, the wall-clock part of ``timestamp``.
    @available(*, deprecated, message: "Pathbase stamps values with a Timestamp: use timestamp.date")
    public var date: Date { timestamp.date }
}
