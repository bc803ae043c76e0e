/// Queries on fields with a merge policy: their paths hold the policy's state (a
/// ``CounterValue``, not the `Int` the struct reads), which neither SQL nor the stored-value
/// tests can compare, so conditions and sorts on them run on the decoded structs — as
/// `@Model` properties with a policy are left out of SQL push-down.
extension CollectionQuery {

    /// The query with its conditions and sorts on `mergedKeys` run on the structs; itself
    /// when it has none.
    func evaluatingOnStructs(_ mergedKeys: Set<String>) -> CollectionQuery {
        guard !mergedKeys.isEmpty else { return self }
        var query = self
        if let pushed = filter.pushed, pushed.mentions(mergedKeys) {
            // What is left still runs in the database; the whole filter then runs on the
            // structs it returns, so the result is exact.
            query.filter = CollectionFilter(evaluate: filter.evaluate, pushed: pushed.without(mergedKeys), residual: filter.evaluate, problem: filter.problem)
        }
        query.sort = sort.map { key in
            guard let stored = key.stored, mergedKeys.contains(stored.key) else { return key }
            return CollectionSort(compare: key.compare, descending: key.descending, stored: nil, problem: key.problem)
        }
        return query
    }
}

extension CollectionSort {
    init(compare: @escaping (Element, Element) -> Bool?, descending: Bool, stored: FieldSort?, problem: CollectionError?) {
        self.compare = compare
        self.descending = descending
        self.stored = stored
        self.problem = problem
    }
}

extension FieldPredicate {

    /// Whether a condition of the predicate is on one of `keys`.
    func mentions(_ keys: Set<String>) -> Bool {
        switch self {
        case .condition(let condition): keys.contains(condition.key)
        case .and(let parts), .or(let parts): parts.contains { $0.mentions(keys) }
        case .not(let part): part.mentions(keys)
        }
    }

    /// A predicate that every struct this one includes meets, with no condition on `keys`;
    /// `nil` when only "every struct" is.
    func without(_ keys: Set<String>) -> FieldPredicate? {
        guard mentions(keys) else { return self }
        guard case .and(let parts) = self else { return nil }
        let kept = parts.compactMap { $0.without(keys) }
        return kept.isEmpty ? nil : .and(kept)
    }
}
