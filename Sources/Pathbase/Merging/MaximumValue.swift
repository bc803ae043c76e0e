/// The stored state of a `.max` property: the largest value written on any replica.
///
/// ```swift
/// @Property(id: 2, merge: .max)
/// var highestBid: Int
///
/// auction.highestBid = 120 // stays 120 if another replica bid 150
/// ```
///
/// Setting the property to a smaller value keeps the larger one; replicas that wrote
/// different values concurrently all end with the largest. Stored as the plain value.
public struct MaximumValue<Value: Codable & Comparable>: MergeableValue {

    /// The largest value written.
    public var value: Value

    /// Creates the state holding one value.
    public init(_ value: Value) {
        self.value = value
    }

    /// The larger of the two values.
    public func merged(with other: Self) -> Self {
        other.value > value ? other : self
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.value == rhs.value
    }

    /// Encodes just the value, as the property would store it without a policy.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Decodes the value.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Value.self)
    }
}

extension MaximumValue: Sendable where Value: Sendable {}
