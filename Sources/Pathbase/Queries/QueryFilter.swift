/// Which instances a query includes: conditions on stored properties, named by key path,
/// that databases run on their stored values (in SQL on `SQLiteDatabase`, over an index).
///
/// ```swift
/// let adults: QueryFilter<Person> = \.age >= 18 && .hasPrefix(\.name, "A")
/// let query = QueryDescriptor<Person>(where: adults, sortBy: \.name, limit: 50)
/// let page = database.fetch(query)
/// ```
///
/// Conditions: `==`, `!=`, `<`, `<=`, `>`, `>=` between a property and a value;
/// ``contains(_:_:)`` and ``hasPrefix(_:_:)`` on strings; `isIn(_:_:)`;
/// ``references(_:_:)-(KeyPath<Model,Target?>,_)`` for references and reference lists; combined with
/// `&&`, `||` and `!`. A filter means exactly what evaluating it on the models means: an
/// instance without a stored value compares its property's default value.
///
/// A condition runs inside the database when its property is a stored property of a
/// `@Model` (a `@Property` of a ``QueryableValue`` type, a `@Reference` or a
/// `@ReferenceList`) and the database supports it. Anything else — a computed property, a
/// `Codable` struct, a closure (``init(_:)``) — is evaluated on the models the database
/// returns, so every filter works on every database with the same results.
public struct QueryFilter<Model: ModelProtocol> {

    /// The filter evaluated on a model: the meaning of the filter.
    let evaluate: (Model) -> Bool

    /// The part a database can run; `nil` when none can.
    let pushed: StoredPredicate?

    /// What must still be evaluated on the models the pushed part returns; `nil` if nothing.
    let residual: ((Model) -> Bool)?

    private init(evaluate: @escaping (Model) -> Bool, pushed: StoredPredicate?, residual: ((Model) -> Bool)?) {
        self.evaluate = evaluate
        self.pushed = pushed
        self.residual = residual
    }

    /// A filter evaluated on models in memory, for conditions the key-path forms can't say.
    ///
    /// ```swift
    /// let long: QueryFilter<Note> = QueryFilter { $0.text.count > 1000 }
    /// ```
    public init(_ isIncluded: @escaping (Model) -> Bool) {
        self.init(evaluate: isIncluded, pushed: nil, residual: isIncluded)
    }

    /// Includes every active instance.
    public static var all: QueryFilter {
        QueryFilter(evaluate: { _ in true }, pushed: .and([]), residual: nil)
    }

    /// Evaluates the filter on a model, in memory: what every database's results agree with.
    ///
    /// ```swift
    /// let isAdult: QueryFilter<Person> = \.age >= 18
    /// print(isAdult.matches(alice))
    /// ```
    public func matches(_ model: Model) -> Bool {
        evaluate(model)
    }

    /// Whether the whole filter runs inside a database that supports push-down.
    public var runsInDatabase: Bool { residual == nil }

    // MARK: Combining

    /// Both filters hold. The parts that can run in the database do, even when the other
    /// part can't.
    public static func && (lhs: QueryFilter, rhs: QueryFilter) -> QueryFilter {
        let pushed: StoredPredicate? =
            switch (lhs.pushed, rhs.pushed) {
            case let (left?, right?): .and([left, right])
            case let (left, right): left ?? right
            }
        let residual: ((Model) -> Bool)? =
            switch (lhs.residual, rhs.residual) {
            case let (left?, right?): { left($0) && right($0) }
            case let (left, right): left ?? right
            }
        return QueryFilter(evaluate: { lhs.evaluate($0) && rhs.evaluate($0) }, pushed: pushed, residual: residual)
    }

    /// Either filter holds.
    public static func || (lhs: QueryFilter, rhs: QueryFilter) -> QueryFilter {
        let evaluate: (Model) -> Bool = { lhs.evaluate($0) || rhs.evaluate($0) }
        guard lhs.runsInDatabase, rhs.runsInDatabase, let left = lhs.pushed, let right = rhs.pushed else {
            return QueryFilter(evaluate: evaluate, pushed: nil, residual: evaluate)
        }
        return QueryFilter(evaluate: evaluate, pushed: .or([left, right]), residual: nil)
    }

    /// The filter does not hold.
    public static prefix func ! (filter: QueryFilter) -> QueryFilter {
        let evaluate: (Model) -> Bool = { !filter.evaluate($0) }
        guard filter.runsInDatabase, let pushed = filter.pushed else {
            return QueryFilter(evaluate: evaluate, pushed: nil, residual: evaluate)
        }
        return QueryFilter(evaluate: evaluate, pushed: .not(pushed), residual: nil)
    }

    // MARK: Conditions

    /// A condition on the value at `keyPath`, run in the database when the key path is a
    /// stored property and `operation` applies to `valueType`.
    static func condition<Value>(
        _ keyPath: KeyPath<Model, Value>,
        storedAs valueType: (any QueryableValue.Type)?,
        _ operation: StoredCondition.Operator,
        _ operands: [QueryOperand],
        isNil: Value? = nil,
        _ test: @escaping (Value) -> Bool
    ) -> QueryFilter {
        let evaluate: (Model) -> Bool = { test($0[keyPath: keyPath]) }
        guard let valueType, let property = Model._$propertyKey(for: keyPath) else {
            return QueryFilter(evaluate: evaluate, pushed: nil, residual: evaluate)
        }
        let matchesDefault = evaluate(Model.withDefaults)
        let condition = StoredCondition(
            property: property,
            valueType: valueType,
            operation: operation,
            operands: operands,
            matchesNil: isNil.map(test) ?? matchesDefault,
            matchesDefault: matchesDefault
        )
        return QueryFilter(evaluate: evaluate, pushed: .condition(condition), residual: nil)
    }

    /// The string at `keyPath` contains `substring` (every string contains `""`).
    ///
    /// ```swift
    /// let query = QueryDescriptor<Note>(where: .contains(\.title, "milk"))
    /// ```
    public static func contains(_ keyPath: KeyPath<Model, String>, _ substring: String) -> QueryFilter {
        condition(keyPath, storedAs: String.self, .contains, [.text(substring)]) { substring.isEmpty || $0.contains(substring) }
    }

    /// The string at `keyPath` starts with `prefix`.
    ///
    /// ```swift
    /// let query = QueryDescriptor<Person>(where: .hasPrefix(\.name, "Al"), sortBy: \.name)
    /// ```
    public static func hasPrefix(_ keyPath: KeyPath<Model, String>, _ prefix: String) -> QueryFilter {
        condition(keyPath, storedAs: String.self, .hasPrefix, [.text(prefix)]) { $0.hasPrefix(prefix) }
    }

    /// The value at `keyPath` is one of `values`.
    ///
    /// ```swift
    /// let query = QueryDescriptor<Order>(where: .isIn(\.state, ["paid", "shipped"]))
    /// ```
    public static func isIn<Value: QueryableValue>(_ keyPath: KeyPath<Model, Value>, _ values: [Value]) -> QueryFilter {
        condition(keyPath, storedAs: Value.self, .isIn, values.map(\.queryOperand)) { values.contains($0) }
    }

    /// The value at `keyPath` is one of `values`, evaluated in memory.
    @_disfavoredOverload
    public static func isIn<Value: Equatable>(_ keyPath: KeyPath<Model, Value>, _ values: [Value]) -> QueryFilter {
        condition(keyPath, storedAs: nil, .isIn, []) { values.contains($0) }
    }

    /// The `@Reference` at `keyPath` points to `target`.
    ///
    /// ```swift
    /// let tasks = database.fetch(QueryDescriptor<Task>(where: .references(\.project, project)))
    /// ```
    public static func references<Target: ModelProtocol>(_ keyPath: KeyPath<Model, Target?>, _ target: Target) -> QueryFilter {
        let id = target.id
        return condition(keyPath, storedAs: InstanceKey.self, .equal, [.integer(Int64(id))], isNil: .some(nil)) { $0?.id == id }
    }

    /// The `@ReferenceList` at `keyPath` contains `target`.
    ///
    /// ```swift
    /// let playlists = database.fetch(QueryDescriptor<Playlist>(where: .references(\.songs, song)))
    /// ```
    public static func references<List: Sequence>(_ keyPath: KeyPath<Model, List>, _ target: List.Element) -> QueryFilter where List.Element: ModelProtocol {
        let id = target.id
        return condition(keyPath, storedAs: InstanceKey.self, .listContains, [.integer(Int64(id))]) { list in
            list.contains { $0.id == id }
        }
    }
}

extension ModelProtocol {
    /// A handle whose every property reads its default: an instance in an empty database.
    static var withDefaults: Self { Self(database: emptyDatabase, id: 0) }
}

/// Never written: reading from it gives every property's default.
private let emptyDatabase = InMemoryDatabase()

// MARK: Comparison operators

/// The property equals a value.
///
/// ```swift
/// let query = QueryDescriptor<Person>(where: \.name == "Alice")
/// ```
public func == <Model: ModelProtocol, Value: QueryableValue>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .equal, [value.queryOperand]) { $0 == value }
}

/// The property differs from a value.
public func != <Model: ModelProtocol, Value: QueryableValue>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .notEqual, [value.queryOperand]) { $0 != value }
}

/// The optional property equals a value, or is `nil` when `value` is `nil`.
///
/// ```swift
/// let unnamed = QueryDescriptor<Pet>(where: \.nickname == nil)
/// ```
public func == <Model: ModelProtocol, Value: QueryableValue>(keyPath: KeyPath<Model, Value?>, value: Value?) -> QueryFilter<Model> {
    if let value {
        return .condition(keyPath, storedAs: Value.self, .equal, [value.queryOperand], isNil: .some(nil)) { $0 == value }
    }
    return .condition(keyPath, storedAs: Value.self, .isNil, [], isNil: .some(nil)) { $0 == nil }
}

/// The optional property differs from a value (`nil` included).
public func != <Model: ModelProtocol, Value: QueryableValue>(keyPath: KeyPath<Model, Value?>, value: Value?) -> QueryFilter<Model> {
    !(keyPath == value)
}

/// The `@Reference` points to `target`, or to nothing when `target` is `nil`.
///
/// ```swift
/// let inbox = QueryDescriptor<Task>(where: \.project == nil)
/// ```
public func == <Model: ModelProtocol, Target: ModelProtocol>(keyPath: KeyPath<Model, Target?>, target: Target?) -> QueryFilter<Model> {
    if let target { return .references(keyPath, target) }
    return .condition(keyPath, storedAs: InstanceKey.self, .isNil, [], isNil: .some(nil)) { $0 == nil }
}

/// The `@Reference` does not point to `target`.
public func != <Model: ModelProtocol, Target: ModelProtocol>(keyPath: KeyPath<Model, Target?>, target: Target?) -> QueryFilter<Model> {
    !(keyPath == target)
}

/// The property is less than a value.
///
/// ```swift
/// let young = QueryDescriptor<Person>(where: \.age < 30, sortBy: \.age)
/// ```
public func < <Model: ModelProtocol, Value: QueryableValue & Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .less, [value.queryOperand]) { $0 < value }
}

/// The property is less than or equal to a value.
public func <= <Model: ModelProtocol, Value: QueryableValue & Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .lessOrEqual, [value.queryOperand]) { $0 <= value }
}

/// The property is greater than a value.
public func > <Model: ModelProtocol, Value: QueryableValue & Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .greater, [value.queryOperand]) { $0 > value }
}

/// The property is greater than or equal to a value.
public func >= <Model: ModelProtocol, Value: QueryableValue & Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: Value.self, .greaterOrEqual, [value.queryOperand]) { $0 >= value }
}

// In-memory forms for values databases can't compare (a Codable enum, for example).

/// The property equals a value; evaluated on models.
@_disfavoredOverload
public func == <Model: ModelProtocol, Value: Equatable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .equal, []) { $0 == value }
}

/// The property differs from a value; evaluated on models.
@_disfavoredOverload
public func != <Model: ModelProtocol, Value: Equatable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .notEqual, []) { $0 != value }
}

/// The property is less than a value; evaluated on models.
@_disfavoredOverload
public func < <Model: ModelProtocol, Value: Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .less, []) { $0 < value }
}

/// The property is less than or equal to a value; evaluated on models.
@_disfavoredOverload
public func <= <Model: ModelProtocol, Value: Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .lessOrEqual, []) { $0 <= value }
}

/// The property is greater than a value; evaluated on models.
@_disfavoredOverload
public func > <Model: ModelProtocol, Value: Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .greater, []) { $0 > value }
}

/// The property is greater than or equal to a value; evaluated on models.
@_disfavoredOverload
public func >= <Model: ModelProtocol, Value: Comparable>(keyPath: KeyPath<Model, Value>, value: Value) -> QueryFilter<Model> {
    .condition(keyPath, storedAs: nil, .greaterOrEqual, []) { $0 >= value }
}
