import Pathbase

/// What the SQL of a query depends on: its model, the tree of its predicate with each
/// condition's property, type, operator and what it evaluates to without a value, the count
/// of its operands and the kind of a prefix, and its sort — everything but the operands'
/// values — and whether its statement returns the matches' values or scans a window. Two queries of one
/// shape run the same statement (``QuerySQL``) with other parameters.
struct QueryShape: Hashable {

    private let model: ModelKey
    private let codes: [Int]

    init(model: ModelKey, predicate: StoredPredicate?, sort: StoredSort?, readingValues: Bool, inWindow: Bool = false) {
        self.model = model
        var codes: [Int] = [readingValues ? 1 : 0, inWindow ? 1 : 0]
        Self.append(predicate, to: &codes)
        if let sort {
            codes += [1, sort.property, Self.code(of: sort.valueType), sort.reverse ? 1 : 0]
        } else {
            codes.append(0)
        }
        self.codes = codes
    }

    private static func append(_ predicate: StoredPredicate?, to codes: inout [Int]) {
        switch predicate {
        case nil:
            codes.append(0)
        case .condition(let condition)?:
            codes += [
                1, condition.property, code(of: condition.valueType), condition.operation.rawValue,
                condition.matchesNil ? 1 : 0, condition.matchesDefault ? 1 : 0,
                condition.operands.count, prefixKind(of: condition)
            ]
        case .and(let parts)?:
            codes += [2, parts.count]
            for part in parts { append(part, to: &codes) }
        case .or(let parts)?:
            codes += [3, parts.count]
            for part in parts { append(part, to: &codes) }
        case .not(let part)?:
            codes.append(4)
            append(part, to: &codes)
        }
    }

    /// The value type, by identity (the statement writes its tag).
    private static func code(of type: any QueryableValue.Type) -> Int {
        Int(bitPattern: UInt(bitPattern: ObjectIdentifier(type)))
    }

    /// A prefix condition is written one of three ways: no prefix (always true), no string
    /// after every string with the prefix (only a lower bound), or both bounds.
    private static func prefixKind(of condition: StoredCondition) -> Int {
        guard condition.operation == .hasPrefix else { return 0 }
        guard case .text(let prefix)? = condition.operands.first, !prefix.isEmpty else { return 1 }
        return QuerySQL.hasSuccessor(prefix) ? 3 : 2
    }
}

extension StoredPredicate {
    /// The conditions in depth-first order, the order ``QuerySQL`` numbers them.
    func collectConditions(into conditions: inout [StoredCondition]) {
        switch self {
        case .condition(let condition): conditions.append(condition)
        case .and(let parts), .or(let parts): for part in parts { part.collectConditions(into: &conditions) }
        case .not(let part): part.collectConditions(into: &conditions)
        }
    }
}
