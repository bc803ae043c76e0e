/// The stored state of a `.min` property: the smallest value written on any replica.
///
/// ```swift
/// @Property(id: 3, merge: .min)
/// var lowestPrice: Int = .max
///
/// offer.lowestPrice = 95 // stays 90 if another replica offered that
/// ```
///
/// Setting the property to a larger value keeps the smaller one; replicas that wrote
/// different values concurrently all end with the smallest. Stored as the plain value.
public struct MinimumValue<Value: Codable & Comparable>: MergeableValue {

    /// The smallest value written.
    public var value: Value

    /// Creates the state holding one value.
    public init(_ value: Value) {
        self.value = value
    }

    /// The smaller of the two values.
    public func merged(with other: Self) -> Self {
        other.value < value ? other : self
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

extension MinimumValue: Sendable where Value: Sendable {}
