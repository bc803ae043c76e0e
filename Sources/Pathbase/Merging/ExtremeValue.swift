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

    /// The preferred of the two values.
    public func merged(with other: Self) -> Self {
        Self.isPreferred(other.value, over: value) ? other : self
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
        self.init(try decoder.singleValueContainer().decode(Value.self))
    }
}
