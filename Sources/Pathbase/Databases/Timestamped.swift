/// A value together with the timestamp of the write that stored it.
public struct Timestamped<Value> {

    /// The stored value.
    public var value: Value

    /// When it was written.
    public var timestamp: Timestamp

    /// Pairs a value with its timestamp.
    public init(value: Value, timestamp: Timestamp) {
        self.value = value
        self.timestamp = timestamp
    }
}

extension Timestamped: Sendable where Value: Sendable {}
extension Timestamped: Equatable where Value: Equatable {}
