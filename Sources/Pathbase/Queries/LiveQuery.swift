import Observation

/// Query results that keep themselves up to date as the database changes.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: try SQLiteDatabase(path: "todo.sqlite"))
/// let open = LiveQuery(QueryDescriptor<Item>(where: \.isCompleted == false, sortBy: \.title), in: database)
/// print(open.results.count)
/// item.isCompleted = true // `open.results` no longer contains it
/// ```
///
/// A live query is `Observable`: reading ``results`` inside `withObservationTracking` (or a
/// SwiftUI view) tracks it. It fetches once (in the database, when the query can run
/// there); after that, when an instance of the model changes, only that instance is
/// evaluated again — its status, the filter and its sort key — and moved, inserted or
/// removed by binary search, instead of running the query again. Updates happen on the
/// writing thread, right after the write.
///
/// The query updates itself when its database is observed: an ``ObservableDatabase``, or a
/// wrapper of one (``isLive`` tells). On other databases it keeps the results of its
/// creation.
public final class LiveQuery<Model: ModelProtocol>: Observable, @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock` (`order.lock`).

    /// What the query fetches.
    public let query: QueryDescriptor<Model>

    /// The database it reads.
    public let database: any Database

    private let registrar = ObservationRegistrar()
    /// The lock of the state below, and the order of updates from several threads.
    private let order = InstanceUpdates()
    private var lock: Lock { order.lock }
    /// Every match with its sort key, in the query's order; ``results`` is a page of it.
    private var matches: [QueryEntry<Model>]
    /// The sort key of every match, to find it in `matches`.
    private var keys: [InstanceKey: SortKey?]
    private var listenerToken: Int?
    /// Called after the results changed, on the writing thread (the async results stream).
    private var resultsDidChange: (@Sendable () -> Void)?

    /// Fetches the query's results and keeps them up to date.
    public init(_ query: QueryDescriptor<Model>, in database: any Database) {
        self.query = query
        self.database = database
        let fetched = database.matches(of: query, paged: false)
        // A database that sorted in SQL returns no keys; read them, and sort in Swift's
        // order, which updates keep by binary search (the same as SQL's but for exotic
        // cases such as non-NFC strings; sorting sorted input is linear).
        matches =
            query.sortKey == nil || fetched.first?.key != nil
            ? fetched
            : fetched.map { QueryEntry(model: $0.model, key: query.sortKey?($0.model)) }.sorted()
        keys = Dictionary(matches.map { ($0.model.id, $0.key) }, uniquingKeysWith: { first, _ in first })
        listenerToken = database.instanceObservers?.addListener { [weak self] path in
            self?.absorb(path)
        }
    }

    deinit {
        if let listenerToken { database.instanceObservers?.removeListener(listenerToken) }
    }

    /// Calls `body` after every change of the results, on the writing thread, until
    /// ``stopUpdating()``.
    package func onResultsChange(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { resultsDidChange = body }
    }

    /// Stops following the database: the results stay as they are, and the database's
    /// observers forget this query.
    package func stopUpdating() {
        let token: Int? = lock.withLock {
            resultsDidChange = nil
            defer { listenerToken = nil }
            return listenerToken
        }
        if let token { database.instanceObservers?.removeListener(token) }
    }

    /// Whether the results follow the database's changes.
    public var isLive: Bool { lock.withLock { listenerToken != nil } }

    /// The current results: filtered, sorted, paged.
    public var results: [Model] {
        registrar.access(self, keyPath: \.results)
        return lock.withLock { query.page(of: matches).map { $0.model } }
    }

    /// How many instances match, ignoring the query's offset and limit.
    public var matchCount: Int {
        registrar.access(self, keyPath: \.results)
        return lock.withLock { matches.count }
    }

    /// Re-evaluates the one instance a write touched.
    private func absorb(_ path: Path) {
        guard path.model == Model.modelId else { return }
        let changed = order.update(
            of: path.instance,
            read: { () -> (entry: QueryEntry<Model>, included: Bool) in
                let candidate = Model(database: database, id: path.instance)
                let included = candidate.status == .created && query.predicate.evaluate(candidate)
                return (QueryEntry(model: candidate, key: included ? query.sortKey?(candidate) : nil), included)
            },
            needsChange: { read in read.included || keys[path.instance] != nil },
            announcing: { change in registrar.withMutation(of: self, keyPath: \.results, change) },
            change: { read in
                if let oldKey = keys.removeValue(forKey: path.instance) {
                    let old = QueryEntry(model: read.entry.model, key: oldKey)
                    let index = insertionIndex(for: old) - 1
                    if matches.indices.contains(index), matches[index].model.id == path.instance {
                        matches.remove(at: index)
                    } else {
                        matches.removeAll { $0.model.id == path.instance }
                    }
                }
                guard read.included else { return }
                matches.insert(read.entry, at: insertionIndex(for: read.entry))
                keys[path.instance] = read.entry.key
            }
        )
        if changed { lock.withLock { resultsDidChange }?() }
    }

    /// Where `entry` goes: after every entry that does not sort after it. Call with the
    /// lock held.
    private func insertionIndex(for entry: QueryEntry<Model>) -> Int {
        var low = 0, high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if entry < matches[middle] {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
