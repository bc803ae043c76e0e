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

    /// Whether `candidate` is the larger value.
    public static func isPreferred(_ candidate: Value, over kept: Value) -> Bool {
        candidate > kept
    }
}

extension MaximumValue: Sendable where Value: Sendable {}
