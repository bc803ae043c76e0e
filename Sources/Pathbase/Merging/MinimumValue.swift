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
public struct MinimumValue<Value: Codable & Comparable>: ExtremeValue {

    /// The smallest value written.
    public var value: Value

    /// Creates the state holding one value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Whether `candidate` is the smaller value (floating-point values in IEEE 754's total
    /// order, in which `-0.0` is below `0.0` and a NaN above infinity, so never kept over a
    /// number).
    public static func isPreferred(_ candidate: Value, over kept: Value) -> Bool {
        ExtremeOrder.isBelow(candidate, kept)
    }
}

extension MinimumValue: Sendable where Value: Sendable {}
