import Foundation

/// The value types that databases keep natively, not as encoded `Codable` values: the one
/// list the record archive, SQLite's value tags, the asset scan, ``QueryableValue`` and
/// ``Defaultable`` are derived from.
///
/// Each use switches over the cases exhaustively, so a type added here is a compile error
/// everywhere it still needs handling; NativeValueTypeTests checks the conformances a switch
/// cannot see (``QueryableValue``, ``Defaultable``, ``NativeDatabaseValue``).
package enum NativeValueType: CaseIterable, Sendable {
    case bool
    case int
    case int8
    case int16
    case int32
    case int64
    case uint
    case uint8
    case uint16
    case uint32
    case uint64
    case double
    case float
    case string
    case data
    case date
    case instanceStatus
    /// `[Int]`, which reference lists store.
    case integerArray

    /// The Swift type.
    package var type: any NativeDatabaseValue.Type {
        switch self {
        case .bool: Bool.self
        case .int: Int.self
        case .int8: Int8.self
        case .int16: Int16.self
        case .int32: Int32.self
        case .int64: Int64.self
        case .uint: UInt.self
        case .uint8: UInt8.self
        case .uint16: UInt16.self
        case .uint32: UInt32.self
        case .uint64: UInt64.self
        case .double: Double.self
        case .float: Float.self
        case .string: String.self
        case .data: Data.self
        case .date: Date.self
        case .instanceStatus: InstanceStatus.self
        case .integerArray: [Int].self
        }
    }

    /// The type's name in a ``RecordArchive`` document (part of its format).
    package var name: String {
        switch self {
        case .integerArray: "[Int]"
        default: String(describing: type)
        }
    }

    /// Whether filters and sorts on the type run inside a database (``QueryableValue``):
    /// not `UInt` and `UInt64`, whose large values SQLite would order as negative, nor the
    /// types without an order (`Data`, statuses, lists).
    package var isQueryable: Bool {
        switch self {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .double, .float, .string, .date: true
        case .uint, .uint64, .data, .instanceStatus, .integerArray: false
        }
    }

    /// Whether a property of the type reads as a natural default with no value stored
    /// (``Defaultable``): every type but `Date` and ``InstanceStatus``, which have none.
    package var isDefaultable: Bool {
        switch self {
        case .date, .instanceStatus: false
        default: true
        }
    }

    /// The native type of a value (`.some` of an optional seen through); `nil` for any other.
    @inlinable
    package init?(of value: any DatabaseValue) {
        guard let native = value as? any NativeDatabaseValue else { return nil }
        self = Swift.type(of: native).nativeType
    }

    /// The type with this archive ``name``.
    package init?(name: String) {
        guard let type = Self.byName[name] else { return nil }
        self = type
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })
}

/// A type in ``NativeValueType``'s list, which says which case it is.
package protocol NativeDatabaseValue: DatabaseValue {
    /// The type's case.
    static var nativeType: NativeValueType { get }
}

extension Bool: NativeDatabaseValue { package static var nativeType: NativeValueType { .bool } }
extension Int: NativeDatabaseValue { package static var nativeType: NativeValueType { .int } }
extension Int8: NativeDatabaseValue { package static var nativeType: NativeValueType { .int8 } }
extension Int16: NativeDatabaseValue { package static var nativeType: NativeValueType { .int16 } }
extension Int32: NativeDatabaseValue { package static var nativeType: NativeValueType { .int32 } }
extension Int64: NativeDatabaseValue { package static var nativeType: NativeValueType { .int64 } }
extension UInt: NativeDatabaseValue { package static var nativeType: NativeValueType { .uint } }
extension UInt8: NativeDatabaseValue { package static var nativeType: NativeValueType { .uint8 } }
extension UInt16: NativeDatabaseValue { package static var nativeType: NativeValueType { .uint16 } }
extension UInt32: NativeDatabaseValue { package static var nativeType: NativeValueType { .uint32 } }
extension UInt64: NativeDatabaseValue { package static var nativeType: NativeValueType { .uint64 } }
extension Double: NativeDatabaseValue { package static var nativeType: NativeValueType { .double } }
extension Float: NativeDatabaseValue { package static var nativeType: NativeValueType { .float } }
extension String: NativeDatabaseValue { package static var nativeType: NativeValueType { .string } }
extension Data: NativeDatabaseValue { package static var nativeType: NativeValueType { .data } }
extension Date: NativeDatabaseValue { package static var nativeType: NativeValueType { .date } }
extension InstanceStatus: NativeDatabaseValue { package static var nativeType: NativeValueType { .instanceStatus } }
extension Array: NativeDatabaseValue where Element == Int { package static var nativeType: NativeValueType { .integerArray } }
