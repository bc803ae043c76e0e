import Pathbase

/// Lets generic code see through `Optional`: `.some(x)` is stored as `x` itself, and
/// `.none` as the ``ValueTag/null`` tag, so `String?` and `String` values read each other
/// as they do in memory.
protocol OptionalValue {
    /// The wrapped value, or `nil` for `.none`.
    var wrappedDatabaseValue: (any DatabaseValue)? { get }
    /// The type of the wrapped value.
    static var wrappedDatabaseValueType: any DatabaseValue.Type { get }
    /// `.none` of this optional type.
    static var noneValue: Self { get }
}

extension Optional: OptionalValue where Wrapped: DatabaseValue {
    var wrappedDatabaseValue: (any DatabaseValue)? { self }
    static var wrappedDatabaseValueType: any DatabaseValue.Type { Wrapped.self }
    static var noneValue: Optional<Wrapped> { nil }
}

/// The innermost non-optional type of `type` (`Int` for `Int??`).
func unwrappedType(_ type: any DatabaseValue.Type) -> any DatabaseValue.Type {
    var type = type
    while let optional = type as? any OptionalValue.Type {
        type = optional.wrappedDatabaseValueType
    }
    return type
}
