// Optional properties on a database that can't tell a stored `nil` from nothing stored.
//
// A custom database written as `values[path] as? Value` over `[Path: Any]` (the seed's
// documented form) answers `.some(nil)` for an `Optional` read of a path that holds nothing,
// because a cast of a missing `Any?` to an `Optional` type succeeds. Models detect such a
// database and store a written `nil` as a marker, so that a property's declared default
// still applies before the first write and a written `nil` still reads `nil`.

/// Whether `database` answers `.some(nil)` for an `Optional` read of a path that holds
/// nothing, as `values[path] as? Value` over an `[Path: Any]` does: asked at a path no
/// model uses, where nothing is ever stored.
@inlinable
public func _$conflatesNil(_ database: any Database) -> Bool {
    database._$conflatesStoredNil
}

extension Database {

    /// Asks the database: a read at a path no model uses, where nothing is ever stored.
    public var _$conflatesStoredNil: Bool {
        let probe: _StoredNil?? = get(Path(model: .min, instance: .min, property: .min))
        return probe != nil
    }
}

/// What a `nil` written to an `Optional` property is stored as on a database that can't
/// tell a stored `nil` from nothing (see ``_$conflatesNil(_:)``); reads as `nil`. Other
/// databases store `nil` itself.
public struct _StoredNil: Codable, Hashable, Sendable {
    @inlinable
    public init() {}
}
