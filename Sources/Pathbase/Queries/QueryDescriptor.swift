import Foundation

/// What to fetch: the active instances of a model that pass a filter, in an order, paged.
///
/// ```swift
/// let open = QueryDescriptor<Item>(filter: { !$0.isCompleted }, sortBy: { $0.sortIndex })
/// let items = database.fetch(open)
/// let firstPage = database.fetch(QueryDescriptor<Item>(sortBy: { $0.name }, limit: 20))
/// ```
///
/// Filters and sort keys are closures over models, evaluated in memory. Every call to an
/// initializer creates a descriptor with a new ``id``, so UI code can tell a changed query
/// from the same one.
public struct QueryDescriptor<Model: ModelProtocol>: Identifiable {

    /// Unique per created descriptor.
    public let id = UUID()

    /// Which instances to include.
    public var filter: (Model) -> Bool

    /// The sort key of a model; `nil` keeps the database's order.
    var sortKey: ((Model) -> SortKey)?

    /// How many results to skip.
    public var offset: Int

    /// At most how many results to return; `nil` for all.
    public var limit: Int?

    /// A query that keeps the database's order.
    public init(filter: @escaping (Model) -> Bool = { _ in true }, offset: Int = 0, limit: Int? = nil) {
        self.filter = filter
        self.sortKey = nil
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) }
    }

    /// A query sorted by a key, ascending (or descending with `reverse`).
    public init<Key: Comparable>(
        filter: @escaping (Model) -> Bool = { _ in true },
        sortBy key: @escaping (Model) -> Key,
        reverse: Bool = false,
        offset: Int = 0,
        limit: Int? = nil
    ) {
        self.init(filter: filter, offset: offset, limit: limit)
        sortKey = { SortKey(key($0), reverse: reverse) }
    }

    /// Whether the query sorts its results.
    public var isSorted: Bool { sortKey != nil }

    /// The page of `matches` (already filtered and sorted) that the query returns.
    func page<Element>(of matches: [Element]) -> [Element] {
        let start = min(offset, matches.count)
        let end = limit.map { min(matches.count, start + $0) } ?? matches.count
        return Array(matches[start ..< end])
    }

    /// Filters and sorts instances, without paging; each with its sort key (read once).
    func keyedMatches(among instances: [Model]) -> [(model: Model, key: SortKey?)] {
        let included = instances.filter(filter).map { (model: $0, key: sortKey?($0)) }
        guard sortKey != nil else { return included }
        return included.sorted { lhs, rhs in
            guard let left = lhs.key, let right = rhs.key else { return false }
            return left < right
        }
    }

    /// Filters and sorts instances, without paging.
    func matches(among instances: [Model]) -> [Model] {
        keyedMatches(among: instances).map(\.model)
    }
}

/// A sort key read from a model, compared without reading the database again.
struct SortKey: Comparable {
    private let value: Any
    private let isLess: (Any) -> Bool

    init<Key: Comparable>(_ key: Key, reverse: Bool) {
        value = key
        isLess = { other in
            guard let other = other as? Key else { return false }
            return reverse ? key > other : key < other
        }
    }

    static func < (lhs: SortKey, rhs: SortKey) -> Bool { lhs.isLess(rhs.value) }

    /// Keys only order; equality is "neither sorts first".
    static func == (lhs: SortKey, rhs: SortKey) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}

extension Database {

    /// Returns the active instances a query describes, filtered, sorted and paged.
    ///
    /// ```swift
    /// let adults = database.fetch(QueryDescriptor<Person>(filter: { $0.age >= 18 }, sortBy: { $0.name }))
    /// ```
    public func fetch<Model: ModelProtocol>(_ query: QueryDescriptor<Model>) -> [Model] {
        query.page(of: query.matches(among: all(of: Model.self)))
    }
}
