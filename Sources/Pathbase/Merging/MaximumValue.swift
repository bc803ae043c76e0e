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
public struct MaximumValue<Value: Codable & Comparable>: ExtremeValue {

    /// The largest value written.
    public var value: Value

    /// Creates the state holding one value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Whether `candidate` is the larger value (floating-point values in IEEE 754's total
    /// order, in which a NaN is above infinity and `0.0` above `-0.0`).
    public static func isPreferred(_ candidate: Value, over kept: Value) -> Bool {
        ExtremeOrder.isBelow(kept, candidate)
    }
}

extension MaximumValue: Sendable where Value: Sendable {}
