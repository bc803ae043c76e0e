import Pathbase

/// A query translated to SQL over `instance_values` (and `list_members`): the statement's
/// text and its parameters, in order. A property's type tag and value are expressions on
/// the instance's body (``Schema/valueExpressions(property:body:)``).
///
/// ```sql
/// -- where: \.count >= 5, sortBy: \.name: starts from the value index of count
/// SELECT s.instance FROM instance_values s
/// WHERE s.model = 7 AND (pathbase_type(s.body, 2) = 2 AND pathbase_value(s.body, 2) >= ?)
/// ORDER BY (CASE WHEN pathbase_type(s.body, 1) = 14 THEN pathbase_value(s.body, 1) ELSE ? END), s.instance
///
/// -- where: \.count != 5 (a missing count is 0, which matches): every active instance
/// SELECT s.instance FROM instance_values s
/// WHERE s.model = 7 AND pathbase_type(s.body, 0) = 16 AND pathbase_value(s.body, 0) = 1
///   AND (CASE WHEN pathbase_type(s.body, 2) = 2 THEN IFNULL(pathbase_value(s.body, 2) <> ?, 0) ... END)
/// ORDER BY s.instance LIMIT ? OFFSET ?
/// ```
///
/// Only active instances match (checked by the caller when the query starts from a
/// condition's rows, see ``checksStatus``). A condition that is a top-level conjunct and can
/// only hold for a stored value of its type is written as plain comparisons, so that SQLite
/// starts from the property's value index `value_index_M_P` (an index on the same
/// expressions) or from `list_members`. Any other condition says what a missing, `nil` or
/// differently typed value evaluates to (the model then reads its default), so SQL returns
/// exactly what evaluating the filter on models returns. Ids, property ids and type tags
/// are trusted integers written into the text; values are bound.
///
/// The text depends on a query's ``QueryShape``, not on its operands: the statement is
/// built once per shape and kept (``QueryStatementCache``), and each run binds
/// ``parameters(predicate:sort:offset:limit:)``, read from the query where
/// ``sources`` say. Building the text cost more than the rest of a small indexed query.
struct QuerySQL {

    private(set) var text = ""

    /// Where each parameter's value comes from, in order.
    private(set) var sources: [ParameterSource] = []

    enum ParameterSource {
        /// Operand `index` of the predicate's `condition`th condition (depth first).
        case operand(condition: Int, index: Int)
        /// The first string after every string that starts with that condition's prefix.
        case successor(condition: Int)
        case sortDefault, limit, offset
        /// The window of a bounded scan: the instance it starts after, the last it reads.
        case windowStart, windowEnd
    }

    /// The properties whose value index the statement starts from: create them before
    /// running it (``SQLiteDatabase/prepareValueIndex(model:property:)``).
    private(set) var indexedProperties: [PropertyKey] = []

    /// Whether the statement selects only active instances and pages. When `false`, it
    /// returns every match in order, and the caller keeps the active ones and pages.
    private(set) var checksStatus = true

    /// Whether the matches come in no particular order: the caller sorts them by instance
    /// before paging. A query that starts from a value index without a sort is not ordered
    /// in SQL: ordered by instance, SQLite would rather scan the model's bodies in instance
    /// order than search the index.
    private(set) var isUnordered = false

    /// Whether each match comes with its current values (``init(model:predicate:sort:readingValues:)``).
    let readsValues: Bool

    /// Translates a query of one shape; `nil` if a condition's value type has no native
    /// storage.
    ///
    /// `readingValues`: every match's current values are read next, so the statement
    /// returns each match with its body — (instance, body) — instead of the caller reading
    /// each match with a statement of its own. Such a statement does not page: the caller
    /// pages, and checks each match's status from its body. Without a sort it is not
    /// ordered either: the caller sorts the ids.
    ///
    /// `inWindow`: the statement reads only the instances of a window of ids (the bounds
    /// are parameters, ``ParameterSource/windowStart`` and ``ParameterSource/windowEnd``)
    /// from the model's rows, in id order, never from a value index: a bounded scan
    /// (``SQLiteDatabase/scanInstances(of:where:after:window:limit:)``). It has no sort and
    /// does not read values.
    init?(model: ModelKey, predicate: StoredPredicate?, sort: StoredSort?, readingValues: Bool = false, inWindow: Bool = false) {
        readsValues = readingValues && !inWindow
        if inWindow {
            guard sort == nil else { return nil }
            var builder = Builder(model: model, startsFromCondition: false)
            guard let condition = builder.condition(for: predicate, topLevel: true) else { return nil }
            text = """
                SELECT s.instance FROM instance_values s
                WHERE s.model = \(model) AND s.instance > ? AND s.instance <= ? AND \(ActiveStatus.sql(body: "s.body")) AND \(condition)
                ORDER BY s.instance LIMIT ? OFFSET ?
                """
            sources = [.windowStart, .windowEnd] + builder.whereParameters + [.limit, .offset]
            return
        }
        var builder = Builder(model: model, startsFromCondition: Self.hasRequiredCondition(predicate))
        guard var condition = builder.condition(for: predicate, topLevel: true) else { return nil }
        if builder.startsFromCondition, builder.startProperty == nil, builder.innerJoins.isEmpty {
            // The required condition's property was joined for an earlier `||` or `!`
            // already: start from the statuses after all.
            builder = Builder(model: model, startsFromCondition: false)
            guard let again = builder.condition(for: predicate, topLevel: true) else { return nil }
            condition = again
        }
        indexedProperties = builder.startProperty.map { [$0] } ?? []
        let instance = builder.instance
        var order = instance
        if let sort {
            guard let tag = Builder.tag(of: sort.valueType) else { return nil }
            let value = builder.value(sort.property, inner: false)
            builder.orderParameters.append(.sortDefault)
            order = "(CASE WHEN \(value.type) = \(tag) THEN \(value.value) ELSE ? END)\(sort.reverse ? " DESC" : ""), \(instance)"
        }
        let model = "s.model = \(model)"
        var from = "instance_values s"
        var conditions: [String]
        var prefixParameters: [ParameterSource] = []
        if builder.startProperty != nil || !builder.innerJoins.isEmpty {
            // Start from the rows a condition selects, in the value index or the list
            // members. Their statuses are checked by the caller in memory
            // (``ActiveInstances``), which also pages.
            if let first = builder.innerJoins.first, builder.startProperty == nil {
                from = "\(first.table) \(first.alias) JOIN instance_values s ON \(model) AND s.instance = \(first.alias).instance"
                conditions = [first.on, condition]
                for join in builder.innerJoins.dropFirst() {
                    from += "\nJOIN \(join.table) \(join.alias) ON \(join.on) AND \(join.alias).instance = \(instance)"
                    prefixParameters += join.parameters
                }
                // The joins' parameters come before the WHERE clause's in the text.
                prefixParameters += first.parameters
            } else {
                for join in builder.innerJoins {
                    from += "\nJOIN \(join.table) \(join.alias) ON \(join.on) AND \(join.alias).instance = \(instance)"
                    prefixParameters += join.parameters
                }
                conditions = [model, condition]
            }
            checksStatus = false
        } else {
            conditions = [model, ActiveStatus.sql(body: "s.body"), condition]
            checksStatus = true
        }
        if readingValues {
            // Each match with its body: its values and its status.
            text = """
                SELECT \(instance), s.body FROM \(from)
                WHERE \(conditions.joined(separator: " AND "))
                """
            sources = prefixParameters + builder.whereParameters
            if sort != nil {
                text += "\nORDER BY \(order)"
                sources += builder.orderParameters
            }
            checksStatus = false
            return
        }
        isUnordered = builder.startProperty != nil && sort == nil
        text = """
            SELECT \(instance) FROM \(from)
            WHERE \(conditions.joined(separator: " AND "))
            """
        if !isUnordered { text += "\nORDER BY \(order)" }
        sources = prefixParameters + builder.whereParameters + builder.orderParameters
        if checksStatus {
            text += "\nLIMIT ? OFFSET ?"
            sources += [.limit, .offset]
        }
    }

    /// Whether a prefix condition on `prefix` gets an upper bound (see ``QueryShape``).
    static func hasSuccessor(_ prefix: String) -> Bool {
        Builder.successor(of: prefix) != nil
    }

    /// The parameters to bind for a query of this statement's shape (`window`: the bounds
    /// of a statement made `inWindow`).
    func parameters(predicate: StoredPredicate?, sort: StoredSort?, offset: Int, limit: Int?, window: (after: InstanceKey, through: InstanceKey)? = nil) -> [QueryOperand] {
        var conditions: [StoredCondition] = []
        predicate?.collectConditions(into: &conditions)
        return sources.map { source in
            switch source {
            case .operand(let condition, let index):
                guard conditions.indices.contains(condition), conditions[condition].operands.indices.contains(index) else { return .integer(0) }
                return conditions[condition].operands[index]
            case .successor(let condition):
                guard conditions.indices.contains(condition), case .text(let prefix)? = conditions[condition].operands.first,
                    let successor = Builder.successor(of: prefix)
                else { return .integer(0) }
                return .text(successor)
            case .sortDefault: return sort?.defaultValue ?? .integer(0)
            case .limit: return .integer(Int64(limit ?? -1))
            case .offset: return .integer(Int64(offset))
            case .windowStart: return .integer(Int64(window?.after ?? .min))
            case .windowEnd: return .integer(Int64(window?.through ?? .max))
            }
        }
    }

    /// Whether a top-level conjunct holds only for stored values of its property, so the
    /// query can start from that property's rows (the ``Builder`` then joins it first).
    private static func hasRequiredCondition(_ predicate: StoredPredicate?) -> Bool {
        switch predicate {
        case .condition(let condition)?: !condition.matchesNil && !condition.matchesDefault
        case .and(let parts)?: parts.contains { hasRequiredCondition($0) }
        case .or?, .not?, nil: false
        }
    }

    /// A table joined for a condition that only its rows can meet: `on` selects its rows
    /// of the model and property (the instance is joined by the caller).
    private struct InnerJoin {
        let table: String
        let alias: String
        let on: String
        let parameters: [ParameterSource]
    }

    /// Collects joins and conditions while walking the predicate.
    private struct Builder {
        let model: ModelKey
        /// Whether the query starts from a required condition's rows (a value index or list
        /// members), rather than from the statuses.
        let startsFromCondition: Bool
        /// The instance column every join matches.
        let instance = "s.instance"
        /// List members a top-level condition requires; without a value index to start from,
        /// the query starts from the first.
        var innerJoins: [InnerJoin] = []
        /// The property whose value index the query starts from, if it does.
        var startProperty: PropertyKey?
        var whereParameters: [ParameterSource] = []
        var orderParameters: [ParameterSource] = []
        /// The depth-first number of the condition being written.
        private var conditionIndex = -1
        /// Properties a condition or the sort has read already.
        private var readProperties: Set<PropertyKey> = []
        private var listJoins = 0

        init(model: ModelKey, startsFromCondition: Bool) {
            self.model = model
            self.startsFromCondition = startsFromCondition
        }

        static func tag(of type: any QueryableValue.Type) -> Int64? {
            (type as? any NativeValue.Type)?.tag.rawValue
        }

        /// A property's type tag and value in the instance's body. The first required
        /// condition of a property no condition read before is the one the query starts from.
        mutating func value(_ property: PropertyKey, inner: Bool) -> (type: String, value: String) {
            if inner, startProperty == nil, innerJoins.isEmpty, !readProperties.contains(property) {
                startProperty = property
            }
            readProperties.insert(property)
            return Schema.valueExpressions(property: property, body: "s.body")
        }

        /// SQL that is 1 exactly where the predicate holds; `nil` if it can't be written.
        /// At the top level (conjuncts of the WHERE clause), conditions met only by stored
        /// values are written for the index.
        mutating func condition(for predicate: StoredPredicate?, topLevel: Bool) -> String? {
            guard let predicate else { return "1" }
            switch predicate {
            case .condition(let condition):
                conditionIndex += 1
                return self.condition(condition, topLevel: topLevel)
            case .and(let parts):
                var clauses: [String] = []
                for part in parts {
                    guard let clause = self.condition(for: part, topLevel: topLevel) else { return nil }
                    clauses.append(clause)
                }
                return clauses.isEmpty ? "1" : "(" + clauses.joined(separator: " AND ") + ")"
            case .or(let parts):
                var clauses: [String] = []
                for part in parts {
                    guard let clause = self.condition(for: part, topLevel: false) else { return nil }
                    clauses.append(clause)
                }
                return clauses.isEmpty ? "0" : "(" + clauses.joined(separator: " OR ") + ")"
            case .not(let part):
                return self.condition(for: part, topLevel: false).map { "(NOT \($0))" }
            }
        }

        private mutating func condition(_ condition: StoredCondition, topLevel: Bool) -> String? {
            guard let tag = Self.tag(of: condition.valueType) else { return nil }
            let onlyStoredValues = !condition.matchesNil && !condition.matchesDefault
            let inner = startsFromCondition && topLevel && onlyStoredValues
            if condition.operation == .listContains {
                return listCondition(condition, inner: inner)
            }
            let value = self.value(condition.property, inner: inner)
            var parameters: [ParameterSource] = []
            let test = comparison(condition, on: value.value, parameters: &parameters)
            whereParameters += parameters
            if inner {
                return "(\(value.type) = \(tag) AND \(test))"
            }
            // Never NULL: a missing value has a NULL type and takes the last branch.
            return
                "(CASE WHEN \(value.type) = \(tag) THEN IFNULL(\(test), 0) WHEN \(value.type) = \(ValueTag.null.rawValue) THEN \(condition.matchesNil ? 1 : 0) ELSE \(condition.matchesDefault ? 1 : 0) END)"
        }

        /// Membership in a stored list, from `list_members`; a missing list is empty.
        private mutating func listCondition(_ condition: StoredCondition, inner: Bool) -> String? {
            guard !condition.operands.isEmpty else { return nil }
            let member = ParameterSource.operand(condition: conditionIndex, index: 0)
            if inner, startProperty == nil || !innerJoins.isEmpty {
                let alias = innerJoins.isEmpty ? "d" : "l\(listJoins)"
                listJoins += 1
                innerJoins.append(
                    InnerJoin(
                        table: "list_members",
                        alias: alias,
                        on: "\(alias).model = \(model) AND \(alias).property = \(condition.property) AND \(alias).member = ?",
                        parameters: [member]
                    ))
                return isCurrentList(condition)
            }
            whereParameters.append(member)
            let exists =
                "(\(isCurrentList(condition)) AND EXISTS (SELECT 1 FROM list_members m WHERE m.model = \(model) AND m.property = \(condition.property) AND m.member = ? AND m.instance = \(instance)))"
            // A list without the member evaluates like the default (empty) list.
            return condition.matchesDefault ? "(NOT \(exists))" : exists
        }

        /// Whether the instance's current value of the condition's property is still a list:
        /// `list_members` rows of a list replaced by a value of another type stay behind (see
        /// `Schema`).
        private func isCurrentList(_ condition: StoredCondition) -> String {
            "\(Schema.valueExpressions(property: condition.property, body: "s.body").type) = \(ValueTag.integerArray.rawValue)"
        }

        /// The comparison of a stored value (of the condition's type) with the operands.
        private func comparison(_ condition: StoredCondition, on value: String, parameters: inout [ParameterSource]) -> String {
            let operand = condition.operands.first ?? .integer(0)
            let first = ParameterSource.operand(condition: conditionIndex, index: 0)
            func binary(_ symbol: String) -> String {
                parameters.append(first)
                return "\(value) \(symbol) ?"
            }
            switch condition.operation {
            case .equal: return binary("=")
            case .notEqual: return binary("<>")
            case .less: return binary("<")
            case .lessOrEqual: return binary("<=")
            case .greater: return binary(">")
            case .greaterOrEqual: return binary(">=")
            case .contains:
                parameters.append(first)
                return "instr(\(value), ?) > 0"
            case .hasPrefix:
                // The shape records which of these three the prefix takes (``QueryShape``).
                guard case .text(let prefix) = operand, !prefix.isEmpty else { return "1" }
                parameters.append(first)
                guard Self.successor(of: prefix) != nil else { return "\(value) >= ?" }
                parameters.append(.successor(condition: conditionIndex))
                return "(\(value) >= ? AND \(value) < ?)"
            case .isIn:
                guard !condition.operands.isEmpty else { return "0" }
                parameters += condition.operands.indices.map { .operand(condition: conditionIndex, index: $0) }
                return "\(value) IN (" + Array(repeating: "?", count: condition.operands.count).joined(separator: ", ") + ")"
            case .isNil, .listContains:
                return "0"
            }
        }

        /// The first string after every string starting with `prefix`, in SQLite's (UTF-8
        /// byte, that is scalar value) order: the prefix with its last scalar incremented.
        /// `nil` if every scalar is the largest (then no upper bound is needed).
        static func successor(of prefix: String) -> String? {
            var scalars = Array(prefix.unicodeScalars)
            while let last = scalars.popLast() {
                var next = last.value + 1
                if next == 0xD800 { next = 0xE000 } // skip the surrogates
                if let scalar = Unicode.Scalar(next) {
                    scalars.append(scalar)
                    var result = String.UnicodeScalarView()
                    result.append(contentsOf: scalars)
                    return String(result)
                }
            }
            return nil
        }
    }
}
