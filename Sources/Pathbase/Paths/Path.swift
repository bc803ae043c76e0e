/// The id of a model type, chosen once with `@Model(id:)`.
public typealias ModelKey = Int

/// The id of one instance of a model type.
public typealias InstanceKey = Int

/// The id of a stored property, chosen once with `@Property(id:)`, `@Reference(id:)` or
/// `@ReferenceList(id:)`.
public typealias PropertyKey = Int

extension PropertyKey {
    /// The reserved property key under which an instance's ``InstanceStatus`` is stored.
    ///
    /// Property ids of models must not use it: `@Property(id: 0)` is rejected at compile time.
    public static var instanceId: PropertyKey { 0 }
}

/// The address of one stored value: which model, which instance, which property.
///
/// Every property value of every model lives under a path, so a database only needs to
/// get and set values by path to hold any model:
///
/// ```swift
/// let path = Path(model: 1, instance: 123, property: 42)
/// database.set("Alice", for: path)
/// let name: String? = database.get(path)
/// ```
///
/// Paths order by model, then instance, then property.
public struct Path: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {

    /// The id of the model type.
    public var model: ModelKey

    /// The id of the instance.
    public var instance: InstanceKey

    /// The id of the property; `PropertyKey/instanceId` for the instance status.
    public var property: PropertyKey

    /// Creates the path of one property of one instance.
    @inlinable
    public init(model: ModelKey, instance: InstanceKey, property: PropertyKey) {
        self.model = model
        self.instance = instance
        self.property = property
    }

    /// The path holding the status of an instance.
    @inlinable
    public static func status(model: ModelKey, instance: InstanceKey) -> Path {
        Path(model: model, instance: instance, property: .instanceId)
    }

    /// Whether this path holds an instance status rather than a property value.
    @inlinable
    public var isStatus: Bool { property == .instanceId }

    public static func < (lhs: Path, rhs: Path) -> Bool {
        (lhs.model, lhs.instance, lhs.property) < (rhs.model, rhs.instance, rhs.property)
    }

    public var description: String { "\(model)/\(instance)/\(property)" }

    // A path is encoded as the compact array [model, instance, property]. It is part of the
    // sync protocol, and `PullResponse.sortedKeysJSON()` writes the same array without the
    // encoder (PullResponseJSONTests compare the two): change both or neither.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        model = try container.decode(ModelKey.self)
        instance = try container.decode(InstanceKey.self)
        property = try container.decode(PropertyKey.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(model)
        try container.encode(instance)
        try container.encode(property)
    }
}
