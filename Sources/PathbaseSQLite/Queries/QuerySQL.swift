import Pathbase

/// A query translated to SQL over `current_values` (and `list_members`): the statement's
/// text and its parameters, in order.
///
/// ```sql
/// -- where: \.count >= 5, sortBy: \.name: starts from the value index
/// SELECT d.instance FROM current_values d
/// LEFT JOIN current_values p1 ON p1.model = 7 AND p1.property = 1 AND p1.instance = d.instance
/// WHERE d.model = 7 AND d.property = 2 AND (d.type = 2 AND d.value >= ?)
/// ORDER BY (CASE WHEN p1.type = 14 THEN p1.value ELSE ? END), d.instance
///
/// -- where: \.count != 5 (a missing count is 0, which matches): starts from the statuses
/// SELECT s.instance FROM current_values s
/// LEFT JOIN current_values p0 ON p0.model = 7 AND p0.property = 2 AND p0.instance = s.instance
/// WHERE s.model = 7 AND s.property = 0 AND s.type = 16 AND s.value = 1
///   AND (CASE WHEN p0.type = 2 THEN IFNULL(p0.value <> ?, 0) WHEN p0.type = 0 THEN 1 ELSE 1 END)
/// ORDER BY s.instance LIMIT ? OFFSET ?
/// ```
///
/// `s` is the instance's status: only active instances match (checked by the caller when
/// the query starts from a condition's rows, see ``checksStatus``). Every property a condition
/// or the sort reads is joined once. A condition that is a top-level conjunct and can only
/// hold for a stored value of its type is met only by rows of its property: the query
/// starts from those, a range of the property's value index `value_index_M_P` (or of
/// `list_members`), with plain comparisons. Any other condition says what a missing, `nil`
/// or differently typed value evaluates to (the model then reads its default), so SQL
/// returns exactly what evaluating the filter on models returns. Ids, property ids and
/// type tags are trusted integers written into the text; values are bound.
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
    }

    /// The properties whose value index the statement starts from: create them before
    /// running it (``SQLiteDatabase/prepareValueIndex(model:property:)``).
    private(set) var indexedProperties: [PropertyKey] = []

    /// Whether the statement selects only active instances and pages. When `false`, it
    /// returns every match in order, and the caller keeps the active ones and pages.
    private(set) var checksStatus = true

    /// Whether each match comes with its current values (``init(model:predicate:sort:readingValues:)``).
    let readsValues: Bool

    /// Translates a query of one shape; `nil` if a condition's value type has no native
    /// storage.
    ///
    /// `readingValues`: every match's current values are read next, so the statement
    /// returns them with the matches, one row per value — (instance, type, value, property),
    /// an instance's rows together — instead of the caller reading each match with a
    /// statement of its own. Such a statement does not page: the caller pages, and checks
    /// each match's status from its rows (property 0). Without a sort it is not ordered
    /// either: the caller sorts the ids, so that SQLite does not sort every value in a
    /// temporary b-tree.
    init?(model: ModelKey, predicate: StoredPredicate?, sort: StoredSort?, readingValues: Bool = false) {
        readsValues = readingValues
        var builder = Builder(model: model, startsFromCondition: Self.hasRequiredCondition(predicate))
        guard var condition = builder.condition(for: predicate, topLevel: true) else { return nil }
        if builder.startsFromCondition, builder.innerJoins.isEmpty {
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
            let alias = builder.join(sort.property, inner: false)
            builder.orderParameters.append(.sortDefault)
            order = "(CASE WHEN \(alias).type = \(tag) THEN \(alias).value ELSE ? END)\(sort.reverse ? " DESC" : ""), \(instance)"
        }
        let status = "s.model = \(model) AND s.property = \(PropertyKey.instanceId)"
        let isActive = ActiveStatus.sql(alias: "s")
        var from: String
        var conditions: [String]
        var prefixParameters: [ParameterSource] = []
        if let first = builder.innerJoins.first {
            // Start from the rows a condition selects, in the value index. Their statuses are
            // checked by the caller in memory (``ActiveInstances``), which also pages: a
            // status lookup per candidate is a random page of the file, dearer than the rest.
            from = "\(first.table) \(first.alias)"
            for join in builder.innerJoins.dropFirst() {
                from += "\nJOIN \(join.table) \(join.alias) ON \(join.on) AND \(join.alias).instance = \(instance)"
                prefixParameters += join.parameters
            }
            conditions = [first.on, condition]
            prefixParameters += first.parameters
            checksStatus = false
        } else {
            from = "current_values s"
            conditions = [status, isActive, condition]
            checksStatus = true
        }
        if readingValues {
            // CROSS JOIN: the planner keeps the values inside, each match's rows together.
            text = """
                SELECT \(instance), v.type, v.value, v.property FROM \(from)\(builder.leftJoins)
                CROSS JOIN current_values v ON v.model = \(model) AND v.instance = \(instance)
                WHERE \(conditions.joined(separator: " AND "))
                """
            sources = prefixParameters + builder.whereParameters
            if sort != nil {
                text += "\nORDER BY \(order), v.property"
                sources += builder.orderParameters
            }
            checksStatus = false
            return
        }
        text = """
            SELECT \(instance) FROM \(from)\(builder.leftJoins)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order)
            """
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

    /// The parameters to bind for a query of this statement's shape.
    func parameters(predicate: StoredPredicate?, sort: StoredSort?, offset: Int, limit: Int?) -> [QueryOperand] {
        var conditions: [StoredCondition] = []
        predicate?.collectConditions(into: &conditions)
        return sources.map { source in
            switch source {
            case .operand(let condition, let index):
                guard conditions.indices.contains(condition), conditions[condition].operands.indices.contains(index) else { return .integer(0) }
                return conditions[condition].operands[index]
            case .successor(let condition):
                guard conditions.indices.contains(condition), case .text(let prefix)? = conditions[condition].operands.first,
                      let successor = Builder.successor(of: prefix) else { return .integer(0) }
                return .text(successor)
            case .sortDefault: return sort?.defaultValue ?? .integer(0)
            case .limit: return .integer(Int64(limit ?? -1))
            case .offset: return .integer(Int64(offset))
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
        /// Whether the query starts from the table `d` of a required condition, rather than
        /// from the statuses `s`.
        let startsFromCondition: Bool
        /// The instance column every join matches.
        let instance: String
        /// Tables whose rows a top-level condition requires; the query starts from them.
        var innerJoins: [InnerJoin] = []
        /// The property of `current_values` the query starts from, if it does.
        var startProperty: PropertyKey?
        var leftJoins = ""
        var whereParameters: [ParameterSource] = []
        var orderParameters: [ParameterSource] = []
        /// The depth-first number of the condition being written.
        private var conditionIndex = -1
        /// The alias of each joined property.
        private var aliases: [PropertyKey: String] = [:]
        private var listJoins = 0

        init(model: ModelKey, startsFromCondition: Bool) {
            self.model = model
            self.startsFromCondition = startsFromCondition
            self.instance = startsFromCondition ? "d.instance" : "s.instance"
        }

        static func tag(of type: any QueryableValue.Type) -> Int64? {
            (type as? any NativeValue.Type)?.tag.rawValue
        }

        /// The alias of a property's current value, joined once: inner when the first
        /// condition on it holds only for stored values (rows without it can't match).
        mutating func join(_ property: PropertyKey, inner: Bool) -> String {
            if let alias = aliases[property] { return alias }
            // The first inner join is the table the query starts from.
            let alias = inner && innerJoins.isEmpty ? "d" : "p\(aliases.count)"
            aliases[property] = alias
            let key = "\(alias).model = \(model) AND \(alias).property = \(property)"
            if inner {
                if innerJoins.isEmpty { startProperty = property }
                innerJoins.append(InnerJoin(table: "current_values", alias: alias, on: key, parameters: []))
            } else {
                leftJoins += "\nLEFT JOIN current_values \(alias) ON \(key) AND \(alias).instance = \(instance)"
            }
            return alias
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
            let alias = join(condition.property, inner: inner)
            var parameters: [ParameterSource] = []
            let test = comparison(condition, on: "\(alias).value", parameters: &parameters)
            whereParameters += parameters
            if inner {
                return "(\(alias).type = \(tag) AND \(test))"
            }
            // Never NULL: a missing join row has a NULL type and takes the last branch.
            return "(CASE WHEN \(alias).type = \(tag) THEN IFNULL(\(test), 0) WHEN \(alias).type = \(ValueTag.null.rawValue) THEN \(condition.matchesNil ? 1 : 0) ELSE \(condition.matchesDefault ? 1 : 0) END)"
        }

        /// Membership in a stored list, from `list_members`; a missing list is empty.
        private mutating func listCondition(_ condition: StoredCondition, inner: Bool) -> String? {
            guard !condition.operands.isEmpty else { return nil }
            let member = ParameterSource.operand(condition: conditionIndex, index: 0)
            if inner {
                let alias = innerJoins.isEmpty ? "d" : "l\(listJoins)"
                listJoins += 1
                innerJoins.append(InnerJoin(
                    table: "list_members",
                    alias: alias,
                    on: "\(alias).model = \(model) AND \(alias).property = \(condition.property) AND \(alias).member = ?",
                    parameters: [member]
                ))
                return isCurrentList(condition, instance: "\(alias).instance")
            }
            whereParameters.append(member)
            let exists = "EXISTS (SELECT 1 FROM list_members m WHERE m.model = \(model) AND m.property = \(condition.property) AND m.member = ? AND m.instance = \(instance) AND \(isCurrentList(condition, instance: "m.instance")))"
            // A list without the member evaluates like the default (empty) list.
            return condition.matchesDefault ? "(NOT \(exists))" : exists
        }

        /// Whether the current value behind a `list_members` row is still a list: rows of a
        /// list replaced by a value of another type stay behind (see `Schema`).
        private func isCurrentList(_ condition: StoredCondition, instance: String) -> String {
            "EXISTS (SELECT 1 FROM current_values c WHERE c.model = \(model) AND c.property = \(condition.property) AND c.instance = \(instance) AND c.type = \(ValueTag.integerArray.rawValue))"
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
