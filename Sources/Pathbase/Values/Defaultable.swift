import Foundation

/// A type with a natural default value, used when a database holds no value for a property.
///
/// A `@Property` whose type is `Defaultable` needs no explicit default:
///
/// ```swift
/// @Property(id: 43)
/// var count: Int // Reads as 0 until a value is stored
/// ```
///
/// Conform your own types to use them the same way, by giving ``defaultValue``.
/// Conformances written for StateModel, with `static let default = …`, also work (see
/// MIGRATING.md); a conformance must give one of the two.
public protocol Defaultable {

    /// The value a property of this type has before anything is stored.
    static var defaultValue: Self { get }

    /// The same value under StateModel's name; it is ``defaultValue`` unless a conformance
    /// written for StateModel gives it instead.
    static var `default`: Self { get }
}

extension Int: Defaultable { public static var defaultValue: Int { 0 } }
extension Int8: Defaultable { public static var defaultValue: Int8 { 0 } }
extension Int16: Defaultable { public static var defaultValue: Int16 { 0 } }
extension Int32: Defaultable { public static var defaultValue: Int32 { 0 } }
extension Int64: Defaultable { public static var defaultValue: Int64 { 0 } }
extension UInt: Defaultable { public static var defaultValue: UInt { 0 } }
extension UInt8: Defaultable { public static var defaultValue: UInt8 { 0 } }
extension UInt16: Defaultable { public static var defaultValue: UInt16 { 0 } }
extension UInt32: Defaultable { public static var defaultValue: UInt32 { 0 } }
extension UInt64: Defaultable { public static var defaultValue: UInt64 { 0 } }
extension Double: Defaultable { public static var defaultValue: Double { 0 } }
extension Float: Defaultable { public static var defaultValue: Float { 0 } }
extension Bool: Defaultable { public static var defaultValue: Bool { false } }
extension String: Defaultable { public static var defaultValue: String { "" } }
extension Data: Defaultable { public static var defaultValue: Data { Data() } }
extension Array: Defaultable { public static var defaultValue: Array { [] } }
extension ContiguousArray: Defaultable { public static var defaultValue: ContiguousArray { [] } }
extension Set: Defaultable { public static var defaultValue: Set { [] } }
extension Dictionary: Defaultable { public static var defaultValue: Dictionary { [:] } }
extension Optional: Defaultable { public static var defaultValue: Optional { nil } }
