import Observation

/// Query results that keep themselves up to date as the database changes.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryDatabase())
/// let open = LiveQuery(QueryDescriptor<Item>(filter: { !$0.isCompleted }, sortBy: { $0.title }), in: database)
/// print(open.results.count)
/// item.isCompleted = true // `open.results` no longer contains it
/// ```
///
/// A live query is `Observable`: reading ``results`` inside `withObservationTracking` (or a
/// SwiftUI view) tracks it. When an instance of the model changes, only that instance is
/// evaluated again — its status, the filter and its sort key — and moved, inserted or
/// removed, instead of fetching everything again. Updates happen on the writing thread,
/// right after the write.
///
/// The query updates itself when its database is observed: an ``ObservableDatabase``, or a
/// wrapper of one (``isLive`` tells). On other databases it keeps the results of its
/// creation.
public final class LiveQuery<Model: ModelProtocol>: Observable, @unchecked Sendable {

    /// What the query fetches.
    public let query: QueryDescriptor<Model>

    /// The database it reads.
    public let database: any Database

    private let registrar = ObservationRegistrar()
    private let lock = Lock()
    /// Every match with its sort key, in order; ``results`` is the query's page of it.
    private var matches: [(model: Model, key: SortKey?)]
    private var listenerToken: Int?

    /// Fetches the query's results and keeps them up to date.
    public init(_ query: QueryDescriptor<Model>, in database: any Database) {
        self.query = query
        self.database = database
        matches = query.keyedMatches(among: database.all(of: Model.self))
        listenerToken = database.instanceObservers?.addListener { [weak self] path in
            self?.absorb(path)
        }
    }

    deinit {
        if let listenerToken { database.instanceObservers?.removeListener(listenerToken) }
    }

    /// Whether the results follow the database's changes.
    public var isLive: Bool { listenerToken != nil }

    /// The current results: filtered, sorted, paged.
    public var results: [Model] {
        registrar.access(self, keyPath: \.results)
        return lock.withLock { query.page(of: matches).map(\.model) }
    }

    /// Re-evaluates the one instance a write touched.
    private func absorb(_ path: Path) {
        guard path.model == Model.modelId else { return }
        // Read the database before taking the lock: a writer in a batch may hold the
        // database's lock and wait for ours.
        let candidate = Model(database: database, id: path.instance)
        let included = candidate.status == .created && query.filter(candidate)
        let key = included ? query.sortKey?(candidate) : nil
        let wasIncluded = lock.withLock { matches.contains { $0.model.id == candidate.id } }
        guard included || wasIncluded else { return }
        registrar.withMutation(of: self, keyPath: \.results) {
            lock.withLock {
                matches.removeAll { $0.model.id == candidate.id }
                guard included else { return }
                matches.insert((candidate, key), at: insertionIndex(for: key))
            }
        }
    }

    /// Where an entry with `key` goes: after every entry that does not sort after it.
    /// Call with the lock held.
    private func insertionIndex(for key: SortKey?) -> Int {
        guard let key else { return matches.count }
        var low = 0, high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if let other = matches[middle].key, key < other {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
