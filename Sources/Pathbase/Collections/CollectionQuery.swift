/// What to fetch from a collection: the structs that pass a filter, in an order, paged.
///
/// ```swift
/// let query = CollectionQuery<User>(where: \.age >= 18, sortedBy: [.ascending(\.name)], limit: 20)
/// let page = try users.fetch(query)
/// ```
///
/// Results are in the sort's order, then by instance key among equal keys; unsorted, by
/// instance key — so pages are the same on every database.
public struct CollectionQuery<Element> {

    /// Which structs to include.
    public var filter: CollectionFilter<Element>

    /// The order, first key first; empty for instance key order.
    public var sort: [CollectionSort<Element>]

    /// How many results to skip.
    public var offset: Int

    /// At most how many results to return; `nil` for all.
    public var limit: Int?

    /// A query; negative offsets and limits count as 0.
    public init(where filter: CollectionFilter<Element> = .all, sortedBy sort: [CollectionSort<Element>] = [], offset: Int = 0, limit: Int? = nil) {
        self.filter = filter
        self.sort = sort
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) }
    }

    /// Why the query can't run (an unknown string key), if so.
    var problem: CollectionError? {
        // A plain loop: a key path in this generic type is instantiated on every call.
        if let problem = filter.problem { return problem }
        for key in sort { if let problem = key.problem { return problem } }
        return nil
    }

    /// Whether `lhs` comes before `rhs` in the query's order.
    func precedes(_ lhs: CollectionMatch<Element>, _ rhs: CollectionMatch<Element>) -> Bool {
        for key in sort {
            if let ascending = key.compare(lhs.element, rhs.element) {
                return ascending != key.descending
            }
        }
        return lhs.instance < rhs.instance
    }

    /// The page of ordered matches the query returns.
    func page<Match>(of matches: [Match]) -> [Match] {
        let start = min(offset, matches.count)
        let end = limit.map { min(matches.count, start + $0) } ?? matches.count
        return Array(matches[start ..< end])
    }
}

/// A struct a query matched, with the instance key it is stored under.
struct CollectionMatch<Element> {
    let instance: InstanceKey
    let element: Element
    /// The fields read: the base of the struct's next save once it reaches the app.
    let fields: FieldSnapshot
}
