import Foundation

/// A property value type that filters and sorts can run on inside a database (in SQL on
/// `SQLiteDatabase`), instead of in memory.
///
/// Integers up to 64 bits (except `UInt` and `UInt64`, whose large values SQLite would order
/// as negative), `Double`, `Float`, `Bool`, `String` and `Date` conform. A ``QueryFilter``
/// on a property of another type still works: it runs in memory.
///
/// Strings compare by Unicode scalar values, which is Swift's order for strings in NFC (the
/// form text input produces); decomposed text may order differently in SQL than in Swift.
public protocol QueryableValue: DatabaseValue, Equatable {

    /// The value as databases compare it.
    var queryOperand: QueryOperand { get }
}

/// A value in the form databases compare: a 64-bit integer, a double or a string.
public enum QueryOperand: Sendable, Hashable {
    /// Integers and `Bool` (0 or 1) compare as a signed 64-bit integer.
    case integer(Int64)
    /// `Double`, `Float` and `Date` (seconds since 2001) compare as a double.
    case real(Double)
    /// Strings compare as text.
    case text(String)
}

extension QueryableValue where Self: BinaryInteger {
    public var queryOperand: QueryOperand { .integer(Int64(self)) }
}

extension Int: QueryableValue {}
extension Int8: QueryableValue {}
extension Int16: QueryableValue {}
extension Int32: QueryableValue {}
extension Int64: QueryableValue {}
extension UInt8: QueryableValue {}
extension UInt16: QueryableValue {}
extension UInt32: QueryableValue {}

extension Double: QueryableValue {
    public var queryOperand: QueryOperand { .real(self) }
}

extension Float: QueryableValue {
    public var queryOperand: QueryOperand { .real(Double(self)) }
}

extension Bool: QueryableValue {
    public var queryOperand: QueryOperand { .integer(self ? 1 : 0) }
}

extension String: QueryableValue {
    public var queryOperand: QueryOperand { .text(self) }
}

extension Date: QueryableValue {
    /// Seconds since 2001-01-01, exactly as `Date` holds them.
    public var queryOperand: QueryOperand { .real(timeIntervalSinceReferenceDate) }
}
