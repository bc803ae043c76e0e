import Foundation

/// The stored state of a `.max` or `.min` property: one value, of which a merge keeps the
/// one that ``isPreferred(_:over:)`` ranks first. ``MaximumValue`` and ``MinimumValue`` differ
/// only in that ranking; their coding (the plain value) and their merge are shared here.
public protocol ExtremeValue: MergeableValue {

    /// The type of the property's value.
    associatedtype Value: Codable & Comparable

    /// The value kept.
    var value: Value { get }

    /// Creates the state holding one value.
    init(_ value: Value)

    /// Whether a merge keeps `candidate` rather than `kept`.
    static func isPreferred(_ candidate: Value, over kept: Value) -> Bool
}

extension ExtremeValue {

    /// The preferred of the two values. Where neither ranks first (equal values with other
    /// bytes, such as canonically equal strings), the one whose encoding sorts last: a join
    /// keeps the same bytes whichever replica merges, in whichever order.
    public func merged(with other: Self) -> Self {
        if Self.isPreferred(other.value, over: value) { return other }
        if Self.isPreferred(value, over: other.value) { return self }
        return ExtremeOrder.encodingSortsAfter(other.value, value) ? other : self
    }

    /// Equal values; floating-point values are compared bit for bit in IEEE 754's total order
    /// (`-0.0` is not `0.0`, a NaN is itself), so that a join that changed the stored bits is
    /// never taken for no change, and a NaN state for a change each time it is merged.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        ExtremeOrder.isTotallyEqual(lhs.value, rhs.value) ?? (lhs.value == rhs.value)
    }

    /// Encodes just the value, as the property would store it without a policy.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Decodes the value.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(Value.self))
    }
}

/// The order that `.max` and `.min` rank values in. `<` for every type but floating point,
/// which `<` leaves unordered: a NaN is neither below nor above anything, and `-0.0 == 0.0`,
/// so a merge keeping whichever it held first made the result depend on the order replicas
/// merged in. Floating-point values follow IEEE 754's total order instead
/// (`-NaN < -∞ < … < -0.0 < 0.0 < … < ∞ < NaN`).
enum ExtremeOrder {

    /// Whether `lower` ranks below `upper`.
    static func isBelow<Value: Comparable>(_ lower: Value, _ upper: Value) -> Bool {
        if let lower = lower as? any FloatingPoint {
            return lower.isTotallyBelow(upper)
        }
        return lower < upper
    }

    /// Whether two floating-point values are the same in the total order; `nil` for values of
    /// other types.
    static func isTotallyEqual<Value: Comparable>(_ lhs: Value, _ rhs: Value) -> Bool? {
        guard let lhs = lhs as? any FloatingPoint else { return nil }
        return !lhs.isTotallyBelow(rhs) && !lhs.isTotallyAbove(rhs)
    }

    /// Whether `candidate`'s encoding sorts after `kept`'s: the tie-break of equal values.
    /// JSON with sorted keys, as values are synchronized; a value without a JSON form falls
    /// back to its reflection, which is as deterministic.
    static func encodingSortsAfter<Value: Codable>(_ candidate: Value, _ kept: Value) -> Bool {
        bytes(of: kept).lexicographicallyPrecedes(bytes(of: candidate))
    }

    private static func bytes<Value: Codable>(of value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let encoded = try? encoder.encode(value) { return Array(encoded) }
        return Array(String(reflecting: value).utf8)
    }
}

extension FloatingPoint {

    /// Whether `self` is strictly below `other` (of the same type) in the total order.
    fileprivate func isTotallyBelow(_ other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return isTotallyOrdered(belowOrEqualTo: other) && !other.isTotallyOrdered(belowOrEqualTo: self)
    }

    /// Whether `self` is strictly above `other` (of the same type) in the total order.
    fileprivate func isTotallyAbove(_ other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return other.isTotallyOrdered(belowOrEqualTo: self) && !isTotallyOrdered(belowOrEqualTo: other)
    }
}
