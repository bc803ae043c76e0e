// Comparison operators between a collection's field and a value, building
// `CollectionFilter`s. A `nil` optional is neither less nor greater than any value, equals
// no value, and differs from every value.

extension CollectionFilter {

    /// A comparison of a field with a value, run in the database where it can.
    static func compare<Value: QueryableValue>(
        _ field: FieldReference<Element>,
        _ operation: StoredCondition.Operator,
        _ value: Value,
        _ test: @escaping (Value, Value) -> Bool
    ) -> CollectionFilter {
        let nilMatches = operation == .notEqual
        return condition(field, storedAs: Value.self, operation, [value.queryOperand]) { (stored: Value?) in
            stored.map { test($0, value) } ?? nilMatches
        }
    }

    /// A comparison evaluated on the structs only (values databases can't compare).
    static func compareInMemory<Value>(_ keyPath: KeyPath<Element, Value>, _ test: @escaping (Value) -> Bool) -> CollectionFilter {
        let evaluate: (Element) -> Bool = { test($0[keyPath: keyPath]) }
        return CollectionFilter(evaluate: evaluate, pushed: nil, residual: evaluate, problem: nil)
    }
}

/// Equals a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name == "Ada"
/// ```
public func == <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .equal, value) { $0 == $1 }
}

/// Equals a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func == <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .equal, value) { $0 == $1 }
}

/// Equals a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") == "Ada"
/// ```
public func == <Element: Codable & Identifiable, Value: QueryableValue>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .equal, value) { $0 == $1 }
}

/// Equals a value; evaluated on the structs.
@_disfavoredOverload
public func == <Element: Codable & Identifiable, Value: Equatable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 == value }
}

/// Differs from a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name != "Ada"
/// ```
public func != <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .notEqual, value) { $0 != $1 }
}

/// Differs from a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func != <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .notEqual, value) { $0 != $1 }
}

/// Differs from a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") != "Ada"
/// ```
public func != <Element: Codable & Identifiable, Value: QueryableValue>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .notEqual, value) { $0 != $1 }
}

/// Differs from a value; evaluated on the structs.
@_disfavoredOverload
public func != <Element: Codable & Identifiable, Value: Equatable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 != value }
}

/// Is less than a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name < "Ada"
/// ```
public func < <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .less, value) { $0 < $1 }
}

/// Is less than a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func < <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .less, value) { $0 < $1 }
}

/// Is less than a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") < "Ada"
/// ```
public func < <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .less, value) { $0 < $1 }
}

/// Is less than a value; evaluated on the structs.
@_disfavoredOverload
public func < <Element: Codable & Identifiable, Value: Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 < value }
}

/// Is less than or equal to a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name <= "Ada"
/// ```
public func <= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .lessOrEqual, value) { $0 <= $1 }
}

/// Is less than or equal to a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func <= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .lessOrEqual, value) { $0 <= $1 }
}

/// Is less than or equal to a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") <= "Ada"
/// ```
public func <= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .lessOrEqual, value) { $0 <= $1 }
}

/// Is less than or equal to a value; evaluated on the structs.
@_disfavoredOverload
public func <= <Element: Codable & Identifiable, Value: Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 <= value }
}

/// Is greater than a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name > "Ada"
/// ```
public func > <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .greater, value) { $0 > $1 }
}

/// Is greater than a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func > <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .greater, value) { $0 > $1 }
}

/// Is greater than a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") > "Ada"
/// ```
public func > <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .greater, value) { $0 > $1 }
}

/// Is greater than a value; evaluated on the structs.
@_disfavoredOverload
public func > <Element: Codable & Identifiable, Value: Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 > value }
}

/// Is greater than or equal to a value.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.name >= "Ada"
/// ```
public func >= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .greaterOrEqual, value) { $0 >= $1 }
}

/// Is greater than or equal to a value, for an optional field (see ``CollectionFilter`` for `nil`).
public func >= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(keyPath: KeyPath<Element, Value?>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(keyPath), .greaterOrEqual, value) { $0 >= $1 }
}

/// Is greater than or equal to a value, for a field named by its coding key.
///
/// ```swift
/// let filter: CollectionFilter<User> = FieldKey("name") >= "Ada"
/// ```
public func >= <Element: Codable & Identifiable, Value: QueryableValue & Comparable>(field: FieldKey<Element>, value: Value) -> CollectionFilter<Element> {
    .compare(FieldReference(field), .greaterOrEqual, value) { $0 >= $1 }
}

/// Is greater than or equal to a value; evaluated on the structs.
@_disfavoredOverload
public func >= <Element: Codable & Identifiable, Value: Comparable>(keyPath: KeyPath<Element, Value>, value: Value) -> CollectionFilter<Element> {
    .compareInMemory(keyPath) { $0 >= value }
}

/// The optional field is `nil` (when `value` is `nil`) or equals `value`.
///
/// ```swift
/// let unknownAge: CollectionFilter<User> = \.age == nil
/// ```
public func == <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value?>, value: Value?) -> CollectionFilter<Element> {
    guard let value else { return .isNil(keyPath) }
    return .compare(FieldReference(keyPath), .equal, value) { $0 == $1 }
}

/// The optional field is not `nil` (when `value` is `nil`) or differs from `value`.
public func != <Element: Codable & Identifiable, Value: QueryableValue>(keyPath: KeyPath<Element, Value?>, value: Value?) -> CollectionFilter<Element> {
    guard let value else { return !.isNil(keyPath) }
    return .compare(FieldReference(keyPath), .notEqual, value) { $0 != $1 }
}
