import Foundation
import Pathbase

/// A Swift type that SQLite stores natively, under its own ``ValueTag``: the types of
/// ``NativeValueType``, each of which conforms (NativeValueTypeTests checks it).
protocol NativeValue: NativeDatabaseValue {
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

extension Int: NativeInteger {}
extension Int8: NativeInteger {}
extension Int16: NativeInteger {}
extension Int32: NativeInteger {}
extension Int64: NativeInteger {}
extension UInt: NativeInteger {}
extension UInt8: NativeInteger {}
extension UInt16: NativeInteger {}
extension UInt32: NativeInteger {}
extension UInt64: NativeInteger {}

extension Bool: NativeValue {
    var stored: StoredValue { .integer(self ? 1 : 0) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Bool? { statement.int64(at: column) != 0 }
}

extension Double: NativeValue {
    var stored: StoredValue { .real(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Double? {
        // SQLite stores NaN as NULL.
        statement.isNull(at: column) ? .nan : statement.double(at: column)
    }
}

extension Float: NativeValue {
    var stored: StoredValue { .real(Double(self)) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Float? {
        statement.isNull(at: column) ? .nan : Float(statement.double(at: column))
    }
}

extension String: NativeValue {
    var stored: StoredValue { .text(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> String? { statement.string(at: column) }
}

extension Data: NativeValue {
    var stored: StoredValue { .blob(self) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Data? { statement.data(at: column) }
}

extension Date: NativeValue {
    var stored: StoredValue { .real(timeIntervalSinceReferenceDate) }
    static func read(from statement: some ValueColumns, at column: Int32) -> Date? {
        Date(timeIntervalSinceReferenceDate: statement.double(at: column))
    }
}

extension InstanceStatus: NativeValue {
    var stored: StoredValue { .integer(Int64(rawValue)) }
    static func read(from statement: some ValueColumns, at column: Int32) -> InstanceStatus? {
        UInt8(exactly: statement.int64(at: column)).flatMap(InstanceStatus.init(rawValue:))
    }
}

extension Array: NativeValue where Element == Int {

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

extension NativeValue {
    /// The tag the type is stored under.
    @inline(__always)
    static var tag: ValueTag { ValueTag(nativeType) }
}

extension NativeValueType {
    /// The type with its SQLite encoding: ``type``, which conforms to ``NativeValue`` for every
    /// case (NativeValueTypeTests checks each), so the table of types is written once.
    var storedType: (any NativeValue.Type)? {
        type as? any NativeValue.Type
    }
}

extension ValueTag {
    /// The Swift type stored natively under this tag; `nil` for ``null``.
    var nativeType: (any NativeValue.Type)? {
        native?.storedType
    }
}
