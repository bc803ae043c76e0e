import Foundation

/// One top-level field of an encoded struct: its value with its Swift type, ready to be
/// compared with what a database stores and written at a path.
///
/// An optional field is kept as `Optional<Wrapped>` (also when `nil`), the type it is read
/// back as, so a `nil` overwrites an older value instead of leaving it in place.
struct FieldValue {

    let value: any DatabaseValue

    /// Writes the value at `path` with its own static type.
    func write(to database: any Database, at path: Path) {
        Self.write(value, to: database, at: path)
    }

    /// Whether `other` (read from a snapshot) is the same value.
    func isEqual(to other: any DatabaseValue) -> Bool {
        Self.equal(value, other)
    }

    /// Whether the database stores exactly this value at `path`.
    func isStored(in database: any Database, at path: Path) -> Bool {
        Self.isStored(value, in: database, at: path)
    }

    private static func write<Value: DatabaseValue>(_ value: Value, to database: any Database, at path: Path) {
        database.set(value, for: path)
    }

    private static func isStored<Value: DatabaseValue>(_ value: Value, in database: any Database, at path: Path) -> Bool {
        guard let stored: Value = database.get(path) else { return false }
        return equal(value, stored)
    }

    /// Equality of two stored values: `==` when the type is `Equatable`, else equal JSON
    /// with sorted keys (structs, enums with associated values).
    static func equal(_ lhs: any DatabaseValue, _ rhs: any DatabaseValue) -> Bool {
        if let equatable = lhs as? any Equatable {
            return equalEquatable(equatable, rhs)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let left = try? encoder.encode(lhs), let right = try? encoder.encode(rhs) else { return false }
        return left == right
    }

    private static func equalEquatable<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
        (rhs as? Value) == lhs
    }
}
