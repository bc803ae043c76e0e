/// What to fetch: the active instances of a model that pass a filter, in an order, paged.
///
/// ```swift
/// // Filters and sorts on stored properties run inside the database (SQL on SQLite):
/// let adults = QueryDescriptor<Person>(where: \.age >= 18, sortBy: \.name, limit: 50)
/// // Closures work everywhere and run on the models:
/// let open = QueryDescriptor<Item>(filter: { !$0.isCompleted }, sortBy: { $0.sortIndex })
/// let items = database.fetch(open)
/// ```
///
/// **Order.** Results are sorted by the sort key, then by ascending instance id among equal
/// keys (`reverse` reverses the key order only); without a sort key, by ascending instance
/// id. So paging with `offset` and `limit` gives the same pages on every database.
///
/// **Where it runs.** A ``QueryFilter`` on stored properties and a key-path sort run in the
/// database when it supports it (`SQLiteDatabase`, and wrappers of it); closures, and
/// everything on other databases, run on the models. Results are the same either way.
///
/// Every call to an initializer creates a descriptor with a new ``id``, so UI code can tell
/// a changed query from the same one.
public struct QueryDescriptor<Model: ModelProtocol>: Identifiable {

    /// Unique per created descriptor in this process (a counter: cheaper than a `UUID`,
    /// which matters for queries made per call, such as inverse lookups).
    public let id = QueryDescriptorIds.next()

    /// Which instances to include.
    public var predicate: QueryFilter<Model>

    /// Which instances to include, as a closure (setting it replaces ``predicate``).
    public var filter: (Model) -> Bool {
        get { predicate.evaluate }
        set { predicate = QueryFilter(newValue) }
    }

    /// The sort key of a model; `nil` sorts by instance id.
    var sortKey: ((Model) -> SortKey)?

    /// The sort as a database runs it, when the key is a stored property.
    var storedSort: StoredSort?

    /// How many results to skip.
    public var offset: Int

    /// At most how many results to return; `nil` for all.
    public var limit: Int?

    private init(predicate: QueryFilter<Model>, sortKey: ((Model) -> SortKey)?, storedSort: StoredSort?, offset: Int, limit: Int?) {
        self.predicate = predicate
        self.sortKey = sortKey
        self.storedSort = storedSort
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) }
    }

    /// A query filtered by a closure, in instance id order.
    public init(filter: ((Model) -> Bool)? = nil, offset: Int = 0, limit: Int? = nil) {
        self.init(predicate: filter.map { QueryFilter($0) } ?? .all, sortKey: nil, storedSort: nil, offset: offset, limit: limit)
    }

    /// A query filtered by a closure and sorted by a key, ascending (or descending with
    /// `reverse`).
    public init<Key: Comparable>(
        filter: ((Model) -> Bool)? = nil,
        sortBy key: @escaping (Model) -> Key,
        reverse: Bool = false,
        offset: Int = 0,
        limit: Int? = nil
    ) {
        self.init(predicate: filter.map { QueryFilter($0) } ?? .all, sortKey: { SortKey(key($0), reverse: reverse) }, storedSort: nil, offset: offset, limit: limit)
    }

    /// A query with a filter that databases can run, in instance id order.
    ///
    /// ```swift
    /// let query = QueryDescriptor<Person>(where: \.city == "Oslo", limit: 10)
    /// ```
    public init(where predicate: QueryFilter<Model>, offset: Int = 0, limit: Int? = nil) {
        self.init(predicate: predicate, sortKey: nil, storedSort: nil, offset: offset, limit: limit)
    }

    /// A query with a filter and a sort on a stored property, both run by the database when
    /// it can.
    ///
    /// ```swift
    /// let newest = QueryDescriptor<Note>(where: .contains(\.title, "plan"), sortBy: \.created, reverse: true, limit: 20)
    /// ```
    public init<Key: QueryableValue & Comparable>(
        where predicate: QueryFilter<Model> = .all,
        sortBy keyPath: KeyPath<Model, Key>,
        reverse: Bool = false,
        offset: Int = 0,
        limit: Int? = nil
    ) {
        let storedSort = Model._$propertyKey(for: keyPath).map { property in
            StoredSort(property: property, valueType: Key.self, defaultValue: Model.withDefaults[keyPath: keyPath].queryOperand, reverse: reverse)
        }
        self.init(predicate: predicate, sortKey: { SortKey($0[keyPath: keyPath], reverse: reverse) }, storedSort: storedSort, offset: offset, limit: limit)
    }

    /// A query with a filter and a sort by any key, computed from the models.
    @_disfavoredOverload
    public init<Key: Comparable>(
        where predicate: QueryFilter<Model>,
        sortBy key: @escaping (Model) -> Key,
        reverse: Bool = false,
        offset: Int = 0,
        limit: Int? = nil
    ) {
        self.init(predicate: predicate, sortKey: { SortKey(key($0), reverse: reverse) }, storedSort: nil, offset: offset, limit: limit)
    }

    /// Whether the query sorts its results by a key.
    public var isSorted: Bool { sortKey != nil }

    /// The page of `matches` (already filtered and sorted) that the query returns.
    func page<Element>(of matches: [Element]) -> [Element] {
        let start = min(offset, matches.count)
        let end = limit.map { min(matches.count, start + $0) } ?? matches.count
        return Array(matches[start ..< end])
    }

    /// Models in the query's order, each with its sort key (read once).
    func keyed(_ models: [Model]) -> [QueryEntry<Model>] {
        models.map { QueryEntry(model: $0, key: sortKey?($0)) }.sorted()
    }
}

/// Hands out descriptor ids.
enum QueryDescriptorIds {
    private static let counter = Locked(0)

    /// A number that grows by one per call, from any thread.
    static func next() -> Int {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}

/// A result of a query with its sort key, ordered by key then instance id.
struct QueryEntry<Model: ModelProtocol>: Comparable {
    let model: Model
    let key: SortKey?

    static func < (lhs: QueryEntry, rhs: QueryEntry) -> Bool {
        if let left = lhs.key, let right = rhs.key {
            if left < right { return true }
            if right < left { return false }
        }
        return lhs.model.id < rhs.model.id
    }

    static func == (lhs: QueryEntry, rhs: QueryEntry) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
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
    /// let adults = database.fetch(QueryDescriptor<Person>(where: \.age >= 18, sortBy: \.name))
    /// ```
    ///
    /// On a database that runs queries (`SQLiteDatabase`, or a wrapper of one) the stored
    /// conditions, the key-path sort and the paging run there; the rest runs on the models.
    public func fetch<Model: ModelProtocol>(_ query: QueryDescriptor<Model>) -> [Model] {
        matches(of: query, paged: true).map { $0.model }
    }

    /// The number of active instances a query matches, ignoring its offset and limit.
    ///
    /// ```swift
    /// let adults = database.count(QueryDescriptor<Person>(where: \.age >= 18))
    /// ```
    public func count<Model: ModelProtocol>(_ query: QueryDescriptor<Model>) -> Int {
        var unsorted = query
        unsorted.sortKey = nil
        unsorted.storedSort = nil
        return matches(of: unsorted, paged: false).count
    }

    /// The query's results in order, with their sort keys; the whole list or one page.
    func matches<Model: ModelProtocol>(of query: QueryDescriptor<Model>, paged: Bool) -> [QueryEntry<Model>] {
        checkModelType(Model.self)
        let sortRunsInDatabase = query.sortKey == nil || query.storedSort != nil
        let pageRunsInDatabase = paged && sortRunsInDatabase && query.predicate.residual == nil
        if let pushdown = queryPushdown,
            let ids = pushdown.instanceIds(
                of: Model.modelId,
                where: query.predicate.pushed,
                sortedBy: query.storedSort,
                offset: pageRunsInDatabase ? query.offset : 0,
                limit: pageRunsInDatabase ? query.limit : nil,
                readingValues: false
            )
        {
            var models = ids.map { Model(database: self, id: $0) }
            if let residual = query.predicate.residual { models = models.filter(residual) }
            let entries =
                sortRunsInDatabase
                ? models.map { QueryEntry(model: $0, key: nil) }
                : query.keyed(models)
            return paged && !pageRunsInDatabase ? query.page(of: entries) : entries
        }
        let entries = query.keyed(all(of: Model.self).filter(query.predicate.evaluate))
        return paged ? query.page(of: entries) : entries
    }
}
