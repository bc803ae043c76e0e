/// A collection's filter evaluated on the stored values of one instance, for databases that
/// can't run it in SQL: the meaning SQL gives it (``StoredCondition``), without decoding the
/// struct.
///
/// So every backend leaves out, counts and deletes the same structs: a struct that no longer
/// decodes (a non-optional field added since it was saved) fails only the fetches that
/// include it, as on `SQLiteDatabase`, instead of every query of its collection.
extension FieldPredicate {

    /// Whether the predicate holds for the current values of `instance`.
    func holds(for instance: InstanceKey, in layout: CollectionLayout, database: any Database) -> Bool {
        switch self {
        case .condition(let condition): condition.holds(for: instance, in: layout, database: database)
        case .and(let parts): parts.allSatisfy { $0.holds(for: instance, in: layout, database: database) }
        case .or(let parts): parts.contains { $0.holds(for: instance, in: layout, database: database) }
        case .not(let part): !part.holds(for: instance, in: layout, database: database)
        }
    }
}

extension FieldCondition {

    /// The test of the stored value when it has the condition's type; a stored `nil` is
    /// `nil`; no value of the type (missing, or written as another type) reads the default.
    func holds(for instance: InstanceKey, in layout: CollectionLayout, database: any Database) -> Bool {
        let path = layout.path(instance, layout.property(forKey: key))
        switch Self.storedValue(of: valueType, at: path, in: database) {
        case .value(let value): return test(value)
        case .null: return matchesNil
        case .missing: return matchesDefault(in: layout)
        }
    }

    private enum StoredValue {
        case value(any QueryableValue)
        case null
        case missing
    }

    private static func storedValue<Value: QueryableValue>(of type: Value.Type, at path: Path, in database: any Database) -> StoredValue {
        if let value: Value = database.get(path) { return .value(value) }
        // Databases read a stored `nil` as `Value?` (an optional field's `nil`).
        if let _: Value? = database.get(path) { return .null }
        return .missing
    }
}
