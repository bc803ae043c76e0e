extension CodableCollection {

    /// The structs a filter includes, in an order, paged.
    ///
    /// ```swift
    /// let adults = try users.fetch(where: \.age >= 18 && \.name != "", sortedBy: [.ascending(\.name)], limit: 20)
    /// ```
    ///
    /// On `SQLiteDatabase` (and wrappers of it) conditions on fields of ``QueryableValue``
    /// types, a single sort on such a field, and the paging run in SQL; the rest runs on the
    /// structs. Other databases test those conditions on the stored values and the rest on
    /// the structs. Results are the same; only the structs included are decoded.
    public func fetch(where filter: CollectionFilter<Element>, sortedBy sort: [CollectionSort<Element>] = [], offset: Int = 0, limit: Int? = nil) throws -> [Element] {
        try fetch(CollectionQuery(where: filter, sortedBy: sort, offset: offset, limit: limit))
    }

    /// The structs a filter includes, sorted by one field, paged.
    ///
    /// ```swift
    /// let page = try users.fetch(where: \.age >= 18, sortedBy: \.name, limit: 20)
    /// ```
    public func fetch<Value: Comparable>(where filter: CollectionFilter<Element> = .all, sortedBy keyPath: KeyPath<Element, Value>, descending: Bool = false, offset: Int = 0, limit: Int? = nil) throws
        -> [Element]
    {
        try fetch(CollectionQuery(where: filter, sortedBy: [CollectionSort(keyPath, descending: descending)], offset: offset, limit: limit))
    }

    /// The structs a filter includes, sorted by an optional field (`nil` first), paged.
    public func fetch<Value: Comparable>(where filter: CollectionFilter<Element> = .all, sortedBy keyPath: KeyPath<Element, Value?>, descending: Bool = false, offset: Int = 0, limit: Int? = nil)
        throws -> [Element]
    {
        try fetch(CollectionQuery(where: filter, sortedBy: [CollectionSort(optional: keyPath, descending: descending)], offset: offset, limit: limit))
    }

    /// The structs a query describes.
    public func fetch(_ query: CollectionQuery<Element>) throws -> [Element] {
        let mark = database.currentRollbackMark
        let decoded = try database.inReadIfSupported { () throws -> DecodedStructs in
            if let pushed = try readPushedStructs(of: query) { return pushed }
            try checkCatalog()
            var decoded = DecodedStructs()
            for match in try readMatches(of: query, paged: true) {
                decoded.elements.append(match.element)
                decoded.bases.append((match.instance, match.fields))
            }
            return decoded
        }
        snapshots.remember(decoded.bases, seenAt: mark)
        return decoded.elements
    }

    /// The structs of a query whose filter, sort and page all run in the database, decoded
    /// straight into the arrays `fetch` returns and remembers; `nil` when a part runs here.
    /// (A `CollectionMatch` per struct, unspecialized for the app's struct, looked up its
    /// type metadata at each use: about a tenth of an indexed query.) The catalog is checked
    /// after the query ran and before anything is decoded: the transaction then has its
    /// snapshot of the file, which reading its version first would have taken with a
    /// statement of its own.
    private func readPushedStructs(of query: CollectionQuery<Element>) throws -> DecodedStructs? {
        if let problem = query.problem { throw problem }
        let query = query.evaluatingOnStructs(layout.mergedKeys)
        let sort = databaseSort(of: query)
        guard sort.runsInDatabase, query.filter.residual == nil,
            let (pushdown, ids) = pushedIds(
                of: query, sortedBy: sort.stored, offset: query.offset, limit: query.limit, decoding: true
            )
        else { return nil }
        try checkCatalog()
        pushdown.willReadCurrentValues(of: layout.model, instances: ids)
        return try decodeStructs(ids, using: pushdown)
    }

    /// The first struct a filter includes in an order, or `nil`.
    ///
    /// ```swift
    /// let youngest = try users.first(where: \.age != nil, sortedBy: [.ascending(\.age)])
    /// ```
    public func first(where filter: CollectionFilter<Element> = .all, sortedBy sort: [CollectionSort<Element>] = []) throws -> Element? {
        try fetch(CollectionQuery(where: filter, sortedBy: sort, limit: 1)).first
    }

    /// How many structs a filter includes.
    ///
    /// ```swift
    /// let adults = try users.count(where: \.age >= 18)
    /// ```
    public func count(where filter: CollectionFilter<Element> = .all) throws -> Int {
        try matchingInstances(of: CollectionQuery(where: filter)).count
    }

    /// Deletes the structs a filter includes, in one batch.
    ///
    /// ```swift
    /// try users.delete(where: \.age < 13)
    /// ```
    public func delete(where filter: CollectionFilter<Element>) throws {
        try delete(instances: matchingInstances(of: CollectionQuery(where: filter)))
    }

    /// The instances a query's filter includes. When the whole filter runs on stored values
    /// (in SQL, or on each instance's values), no struct is decoded: counting 10^5 matches
    /// decoded 10^5 structs.
    private func matchingInstances(of query: CollectionQuery<Element>) throws -> [InstanceKey] {
        if let problem = query.problem { throw problem }
        let query = query.evaluatingOnStructs(layout.mergedKeys)
        return try database.inReadIfSupported {
            try checkCatalog()
            guard query.filter.residual == nil else {
                return try readMatches(of: query, paged: false).map { $0.instance }
            }
            return pushedIds(of: query, sortedBy: nil, offset: 0, limit: nil, decoding: false)?.ids ?? storedMatches(of: query.filter)
        }
    }

    /// The active instances whose stored values meet the filter's part that databases run,
    /// tested here for a database that can't run it itself; in ascending order.
    private func storedMatches(of filter: CollectionFilter<Element>) -> [InstanceKey] {
        let instances = layout.activeInstances(in: database)
        guard let pushed = filter.pushed else { return instances }
        return instances.filter { pushed.holds(for: $0, in: layout, database: database) }
    }

    /// The ids the database finds for a query's filter in its own query language (SQL),
    /// with the database that found them; `nil` when it can't run the filter.
    /// `decoding`: every id's struct is decoded next.
    private func pushedIds(of query: CollectionQuery<Element>, sortedBy sort: StoredSort?, offset: Int, limit: Int?, decoding: Bool) -> (pushdown: any QueryPushdownDatabase, ids: [InstanceKey])? {
        guard let pushdown = database.queryPushdown,
            let ids = pushdown.instanceIds(
                of: layout.model, where: query.filter.pushed?.stored(in: layout), sortedBy: sort, offset: offset, limit: limit, readingValues: decoding
            )
        else { return nil }
        return (pushdown, ids)
    }

    /// The query's matches in order; the whole list or one page. `remembering`: the structs
    /// go to the app, their fields become the bases of their next saves.
    func matches(of query: CollectionQuery<Element>, paged: Bool, remembering: Bool) throws -> [CollectionMatch<Element>] {
        let mark = database.currentRollbackMark
        let matches = try database.inReadIfSupported {
            try checkCatalog()
            return try readMatches(of: query, paged: paged)
        }
        if remembering { remember(matches, seenAt: mark) }
        return matches
    }

    /// ``matches(of:paged:remembering:)`` inside its read transaction.
    private func readMatches(of query: CollectionQuery<Element>, paged: Bool) throws -> [CollectionMatch<Element>] {
        if let problem = query.problem { throw problem }
        let query = query.evaluatingOnStructs(layout.mergedKeys)
        let sort = databaseSort(of: query)
        let sortRunsInDatabase = sort.runsInDatabase
        let pageRunsInDatabase = paged && sortRunsInDatabase && query.filter.residual == nil
        if let (pushdown, ids) = pushedIds(
            of: query, sortedBy: sort.stored, offset: pageRunsInDatabase ? query.offset : 0, limit: pageRunsInDatabase ? query.limit : nil, decoding: true
        ) {
            snapshots.expect(ids.count)
            pushdown.willReadCurrentValues(of: layout.model, instances: ids)
            let decoder = makeDecoder(expecting: ids.count)
            defer { decoder.close() }
            var matches = try ids.map { instance in
                let (element, fields) = try decode(instance, using: pushdown, with: decoder)
                return CollectionMatch(instance: instance, element: element, fields: fields)
            }
            if let residual = query.filter.residual { matches = matches.filter { residual($0.element) } }
            if !sortRunsInDatabase { matches.sort(by: query.precedes) }
            return paged && !pageRunsInDatabase ? query.page(of: matches) : matches
        }
        let instances = storedMatches(of: query.filter)
        snapshots.expect(instances.count)
        let decoder = makeDecoder(expecting: instances.count)
        defer { decoder.close() }
        var matches = try instances.map { instance in
            let (element, fields) = try decode(instance, using: nil, with: decoder)
            return CollectionMatch(instance: instance, element: element, fields: fields)
        }
        if let residual = query.filter.residual { matches = matches.filter { residual($0.element) } }
        matches.sort(by: query.precedes)
        return paged ? query.page(of: matches) : matches
    }

    /// The query's sort as the database runs it (a single sort on a queryable field, or
    /// none), and whether it runs there.
    private func databaseSort(of query: CollectionQuery<Element>) -> (stored: StoredSort?, runsInDatabase: Bool) {
        let stored =
            query.sort.count == 1
            ? query.sort[0].stored.map { sort in
                StoredSort(
                    property: layout.property(forKey: sort.key),
                    valueType: sort.valueType,
                    defaultValue: (layout.defaults[sort.key] as? any QueryableValue)?.queryOperand ?? .integer(0),
                    reverse: query.sort[0].descending
                )
            } : nil
        return (stored, query.sort.isEmpty || stored != nil)
    }
}

extension CodableCollection {
    /// The stored predicate a filter runs as in this collection (for query plans in tests).
    package func storedPredicate(for filter: CollectionFilter<Element>) -> StoredPredicate? {
        CollectionQuery(where: filter).evaluatingOnStructs(layout.mergedKeys).filter.pushed?.stored(in: layout)
    }
}
