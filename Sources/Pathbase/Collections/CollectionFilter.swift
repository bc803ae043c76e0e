/// Which structs of a collection a query includes: conditions on top-level fields, named by
/// key path or by coding key, that databases run on stored values (in SQL on
/// `SQLiteDatabase`) and that mean exactly what evaluating them on the structs means.
///
/// ```swift
/// let filter: CollectionFilter<User> = \.age >= 18 && \.name != "" && !.hasPrefix(\.name, "Z")
/// let adults = try users.fetch(where: filter, sortedBy: \.name)
/// let some = try users.fetch(where: .isIn(\.name, ["Ada", "Grace"]) || \.age == nil)
/// ```
///
/// Conditions: `==`, `!=`, `<`, `<=`, `>`, `>=` between a field and a value (a `nil` optional
/// is neither less nor greater than anything; `== nil` and `!= nil` test it);
/// ``isIn(_:_:)-(KeyPath<Element,Value>,_)``, ``hasPrefix(_:_:)-(KeyPath<Element,String>,_)`` and
/// ``contains(_:_:)-(KeyPath<Element,String>,_)``; combined with `&&`, `||` and `!`. Conditions on
/// fields of ``QueryableValue`` types compile to the same stored predicate as `@Model` queries,
/// so `SQLiteDatabase` runs them over its value index; anything else (a computed property, a
/// nested struct) is evaluated on the structs.
public struct CollectionFilter<Element> {

    /// The meaning of the filter.
    let evaluate: (Element) -> Bool

    /// The part a database can run, given the collection's layout; `nil` when none can.
    let pushed: FieldPredicate?

    /// What must still be evaluated on the structs the pushed part returns.
    let residual: ((Element) -> Bool)?

    /// Why the filter can't run (an unknown string key).
    let problem: CollectionError?

    init(evaluate: @escaping (Element) -> Bool, pushed: FieldPredicate?, residual: ((Element) -> Bool)?, problem: CollectionError?) {
        self.evaluate = evaluate
        self.pushed = pushed
        self.residual = residual
        self.problem = problem
    }

    /// A filter evaluated on the structs, for conditions the field forms can't say.
    ///
    /// ```swift
    /// let tagged = CollectionFilter<User> { !$0.tags.isEmpty }
    /// ```
    public init(_ isIncluded: @escaping (Element) -> Bool) {
        self.init(evaluate: isIncluded, pushed: nil, residual: isIncluded, problem: nil)
    }

    /// Includes every struct.
    public static var all: CollectionFilter {
        CollectionFilter(evaluate: { _ in true }, pushed: .and([]), residual: nil, problem: nil)
    }

    /// Evaluates the filter on a struct.
    ///
    /// ```swift
    /// let isAdult: CollectionFilter<User> = \.age >= 18
    /// print(isAdult.matches(user))
    /// ```
    public func matches(_ element: Element) -> Bool {
        evaluate(element)
    }

    // MARK: Combining

    /// Both filters hold; the parts that can run in the database do.
    public static func && (lhs: CollectionFilter, rhs: CollectionFilter) -> CollectionFilter {
        let pushed: FieldPredicate? =
            switch (lhs.pushed, rhs.pushed) {
            case let (left?, right?): .and([left, right])
            case let (left, right): left ?? right
            }
        let residual: ((Element) -> Bool)? =
            switch (lhs.residual, rhs.residual) {
            case let (left?, right?): { left($0) && right($0) }
            case let (left, right): left ?? right
            }
        return CollectionFilter(evaluate: { lhs.evaluate($0) && rhs.evaluate($0) }, pushed: pushed, residual: residual, problem: lhs.problem ?? rhs.problem)
    }

    /// Either filter holds.
    public static func || (lhs: CollectionFilter, rhs: CollectionFilter) -> CollectionFilter {
        let evaluate: (Element) -> Bool = { lhs.evaluate($0) || rhs.evaluate($0) }
        let problem = lhs.problem ?? rhs.problem
        guard lhs.residual == nil, rhs.residual == nil, let left = lhs.pushed, let right = rhs.pushed else {
            return CollectionFilter(evaluate: evaluate, pushed: nil, residual: evaluate, problem: problem)
        }
        return CollectionFilter(evaluate: evaluate, pushed: .or([left, right]), residual: nil, problem: problem)
    }

    /// The filter does not hold.
    public static prefix func ! (filter: CollectionFilter) -> CollectionFilter {
        let evaluate: (Element) -> Bool = { !filter.evaluate($0) }
        guard filter.residual == nil, let pushed = filter.pushed else {
            return CollectionFilter(evaluate: evaluate, pushed: nil, residual: evaluate, problem: filter.problem)
        }
        return CollectionFilter(evaluate: evaluate, pushed: .not(pushed), residual: nil, problem: filter.problem)
    }

    // MARK: Conditions

    /// A condition on a field, tested on its value (`nil` for a `nil` optional); run in the
    /// database when the field is stored and `valueType` is queryable.
    static func condition<Value>(
        _ field: FieldReference<Element>,
        storedAs valueType: (any QueryableValue.Type)?,
        _ operation: StoredCondition.Operator,
        _ operands: [QueryOperand],
        _ test: @escaping (Value?) -> Bool
    ) -> CollectionFilter {
        let read = field.read
        let evaluate: (Element) -> Bool = { test(read($0) as? Value) }
        guard let valueType, let key = field.key else {
            return CollectionFilter(evaluate: evaluate, pushed: nil, residual: evaluate, problem: field.problem)
        }
        let condition = FieldCondition(key: key, valueType: valueType, operation: operation, operands: operands, matchesNil: test(nil)) { test($0 as? Value) }
        return CollectionFilter(evaluate: evaluate, pushed: .condition(condition), residual: nil, problem: nil)
    }

    /// The string field contains `substring` (every string contains `""`).
    ///
    /// ```swift
    /// let filter: CollectionFilter<User> = .contains(\.name, "da")
    /// ```
    public static func contains(_ keyPath: KeyPath<Element, String>, _ substring: String) -> CollectionFilter {
        contains(FieldReference(keyPath), substring)
    }

    /// The optional string field is not `nil` and contains `substring`.
    public static func contains(_ keyPath: KeyPath<Element, String?>, _ substring: String) -> CollectionFilter {
        contains(FieldReference(keyPath), substring)
    }

    /// The string field named by a coding key contains `substring`.
    public static func contains(_ field: FieldKey<Element>, _ substring: String) -> CollectionFilter {
        contains(FieldReference(field), substring)
    }

    private static func contains(_ field: FieldReference<Element>, _ substring: String) -> CollectionFilter {
        condition(field, storedAs: String.self, .contains, [.text(substring)]) { (value: String?) in
            value.map { substring.isEmpty || $0.contains(substring) } ?? false
        }
    }

    /// The string field starts with `prefix`.
    ///
    /// ```swift
    /// let filter: CollectionFilter<User> = .hasPrefix(\.name, "A")
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Element, String>, _ prefix: String) -> CollectionFilter {
        hasPrefix(FieldReference(keyPath), prefix)
    }

    /// The optional string field is not `nil` and starts with `prefix`.
    public static func hasPrefix(_ keyPath: KeyPath<Element, String?>, _ prefix: String) -> CollectionFilter {
        hasPrefix(FieldReference(keyPath), prefix)
    }

    /// The string field named by a coding key starts with `prefix`.
    public static func hasPrefix(_ field: FieldKey<Element>, _ prefix: String) -> CollectionFilter {
        hasPrefix(FieldReference(field), prefix)
    }

    private static func hasPrefix(_ field: FieldReference<Element>, _ prefix: String) -> CollectionFilter {
        condition(field, storedAs: String.self, .hasPrefix, [.text(prefix)]) { (value: String?) in
            value.map { $0.hasPrefix(prefix) } ?? false
        }
    }

    /// The field's value is one of `values`.
    ///
    /// ```swift
    /// let filter: CollectionFilter<User> = .isIn(\.name, ["Ada", "Grace"])
    /// ```
    public static func isIn<Value: QueryableValue>(_ keyPath: KeyPath<Element, Value>, _ values: [Value]) -> CollectionFilter {
        isIn(FieldReference(keyPath), values)
    }

    /// The optional field is not `nil` and its value is one of `values`.
    public static func isIn<Value: QueryableValue>(_ keyPath: KeyPath<Element, Value?>, _ values: [Value]) -> CollectionFilter {
        isIn(FieldReference(keyPath), values)
    }

    /// The field named by a coding key has one of `values`.
    public static func isIn<Value: QueryableValue>(_ field: FieldKey<Element>, _ values: [Value]) -> CollectionFilter {
        isIn(FieldReference(field), values)
    }

    private static func isIn<Value: QueryableValue>(_ field: FieldReference<Element>, _ values: [Value]) -> CollectionFilter {
        condition(field, storedAs: Value.self, .isIn, values.map(\.queryOperand)) { (value: Value?) in
            value.map(values.contains) ?? false
        }
    }

    /// The optional field is `nil` (or was never stored).
    ///
    /// ```swift
    /// let unknownAge: CollectionFilter<User> = .isNil(\.age)
    /// ```
    public static func isNil<Value: QueryableValue>(_ keyPath: KeyPath<Element, Value?>) -> CollectionFilter {
        condition(FieldReference(keyPath), storedAs: Value.self, .isNil, []) { (value: Value?) in value == nil }
    }

    /// The field named by a coding key is `nil`; `Value` is its type without `Optional`.
    public static func isNil<Value: QueryableValue>(_ field: FieldKey<Element>, as type: Value.Type) -> CollectionFilter {
        condition(FieldReference(field), storedAs: Value.self, .isNil, []) { (value: Value?) in value == nil }
    }
}

/// A filter on fields by coding key, before the collection's layout turns keys into
/// property keys: then it is the ``StoredPredicate`` `@Model` queries use.
indirect enum FieldPredicate {
    case condition(FieldCondition)
    case and([FieldPredicate])
    case or([FieldPredicate])
    case not(FieldPredicate)

    /// The stored predicate for a collection.
    func stored(in layout: CollectionLayout) -> StoredPredicate {
        switch self {
        case .condition(let condition): .condition(condition.stored(in: layout))
        case .and(let parts): .and(parts.map { $0.stored(in: layout) })
        case .or(let parts): .or(parts.map { $0.stored(in: layout) })
        case .not(let part): .not(part.stored(in: layout))
        }
    }
}

/// One condition on a field by coding key.
struct FieldCondition {
    let key: String
    let valueType: any QueryableValue.Type
    let operation: StoredCondition.Operator
    let operands: [QueryOperand]
    /// What the condition gives for a `nil` or missing value.
    let matchesNil: Bool
    /// The test on a value of any type, for the collection's declared default.
    let test: (Any?) -> Bool

    /// The condition on the collection's property; a struct without a value of the type
    /// reads the declared default, or `nil`.
    func stored(in layout: CollectionLayout) -> StoredCondition {
        StoredCondition(
            property: layout.property(forKey: key),
            valueType: valueType,
            operation: operation,
            operands: operands,
            matchesNil: matchesNil,
            matchesDefault: matchesDefault(in: layout)
        )
    }

    /// What the condition gives for a struct without a value of the type: the test of the
    /// declared default, else of `nil`.
    func matchesDefault(in layout: CollectionLayout) -> Bool {
        layout.defaults[key].map { test($0) } ?? matchesNil
    }
}
