import Foundation
import Pathbase

/// A Swift type that SQLite stores natively, under its own ``ValueTag``.
protocol NativeValue: DatabaseValue {
    static var tag: ValueTag { get }
    /// The value as SQLite stores it.
    var stored: StoredValue { get }
    static func read(from statement: some ValueColumns, at column: Int32) -> Self?
}

/// A fixed-width integer stored as SQLite INTEGER.
protocol NativeInteger: NativeValue, FixedWidthInteger {}

extension NativeInteger {
    var stored: StoredValue { .integer(Int64(truncatingIfNeeded: self)) }

    static func read(from statement: some ValueColumns, at column: Int32) -> Self? {
        Self(truncatingIfNeeded: statement.int64(at: column))
    }
}

extension Int: NativeInteger { static var tag: ValueTag { .int } }
extension Int8: NativeInteger { static var tag: ValueTag { .int8 } }
extension Int16: NativeInteger { static var tag: ValueTag { .int16 } }
extension Int32: NativeInteger { static var tag: ValueTag { .int32 } }
extension Int64: NativeInteger { static var tag: ValueTag { .int64 } }
extension UInt: NativeInteger { static var tag: ValueTag { .uint } }
extension UInt8: NativeInteger { static var tag: ValueTag { .uint8 } }
extension UInt16: NativeInteger { static var tag: ValueTag { .uint16 } }
extension UInt32: NativeInteger { static var tag: ValueTag { .uint32 } }
extension UInt64: NativeInteger { static var tag: ValueTag { .uint64 } }

extension Bool: NativeValue {
    static var tag: ValueTag { .bool }
    var stored: StoredValue { .integer(self ? 1 : 0) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Bool? { statement.int64(at: column) != 0 }
}

extension Double: NativeValue {
    static var tag: ValueTag { .double }
    var stored: StoredValue { .real(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Double? {
        // SQLite stores NaN as NULL.
        statement.isNull(at: column) ? .nan : statement.double(at: column)
    }
}

extension Float: NativeValue {
    static var tag: ValueTag { .float }
    var stored: StoredValue { .real(Double(self)) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Float? {
        statement.isNull(at: column) ? .nan : Float(statement.double(at: column))
    }
}

extension String: NativeValue {
    static var tag: ValueTag { .string }
    var stored: StoredValue { .text(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> String? { statement.string(at: column) }
}

extension Data: NativeValue {
    static var tag: ValueTag { .data }
    var stored: StoredValue { .blob(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Data? { statement.data(at: column) }
}

extension Date: NativeValue {
    static var tag: ValueTag { .date }
    var stored: StoredValue { .real(timeIntervalSinceReferenceDate) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Date? {
        Date(timeIntervalSinceReferenceDate: statement.double(at: column))
    }
}

extension InstanceStatus: NativeValue {
    static var tag: ValueTag { .status }
    var stored: StoredValue { .integer(Int64(rawValue)) }
    static func read(from statement: some ValueColumns, at column: Int32) -> InstanceStatus? {
        UInt8(exactly: statement.int64(at: column)).flatMap(InstanceStatus.init(rawValue:))
    }
}

extension Array: NativeValue where Element == Int {
    static var tag: ValueTag { .integerArray }

    var stored: StoredValue {
        var bytes = Data(count: count * 8)
        bytes.withUnsafeMutableBytes { buffer in
            for (offset, element) in enumerated() {
                buffer.storeBytes(of: Int64(element).littleEndian, toByteOffset: offset * 8, as: Int64.self)
            }
        }
        return .blob(bytes)
    }

    static func read(from statement: some ValueColumns, at column: Int32) -> [Int]? {
        statement.withBytes(at: column) { buffer in
            guard buffer.count % 8 == 0 else { return nil }
            return (0 ..< buffer.count / 8).map { offset in
                Int(truncatingIfNeeded: Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset * 8, as: Int64.self)))
            }
        }
    }
}

extension ValueTag {
    /// The Swift type stored natively under this tag; `nil` for ``null``.
    var nativeType: (any NativeValue.Type)? {
        switch self {
        case .null: return nil
        case .bool: return Bool.self
        case .int: return Int.self
        case .int8: return Int8.self
        case .int16: return Int16.self
        case .int32: return Int32.self
        case .int64: return Int64.self
        case .uint: return UInt.self
        case .uint8: return UInt8.self
        case .uint16: return UInt16.self
        case .uint32: return UInt32.self
        case .uint64: return UInt64.self
        case .double: return Double.self
        case .float: return Float.self
        case .string: return String.self
        case .data: return Data.self
        case .status: return InstanceStatus.self
        case .date: return Date.self
        case .integerArray: return [Int].self
        }
    }
}
