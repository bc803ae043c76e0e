#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif
import Observation

/// A collection query's results that keep themselves up to date: an `Observable` (and
/// `ObservableObject`) object for SwiftUI, and an `AsyncSequence` of result lists for any task.
///
/// ```swift
/// let database = ObservableDatabase(wrapping: try SQLiteDatabase(path: "app.sqlite"))
/// let users = database.collection(User.self)
/// let adults = try users.live(where: \.age >= 18, sortedBy: [.ascending(\.name)])
/// print(adults.results)             // Observable: SwiftUI and withObservationTracking see changes
/// for await page in adults.updates() { print(page.count) }
/// ```
///
/// Like ``LiveQuery`` it fetches once, then listens to the observed database's writes and
/// re-reads only the struct a write touched: its status, the filter, its place by binary
/// search — never the whole query again. It follows writes from any source on the
/// ``ObservableDatabase`` (this or another collection handle, a committed context, a sync
/// apply, undo). On a database that is not observed it keeps its first results. Its
/// structs are `Sendable`, since results cross to the tasks that iterate ``updates()``
/// (``isLive`` tells).
public final class LiveCollection<Element: Codable & Identifiable & Sendable>: Observable, ObservableObject, @unchecked Sendable where Element.ID: CollectionIdentifier {
    // @unchecked: the matches and continuations are guarded by `lock`, the one of `order`.

    /// What the results are.
    public let query: CollectionQuery<Element>

    /// The collection read.
    public let collection: CodableCollection<Element>

    /// Fires before the results change, on the thread of the write.
    public let objectWillChange = ObservableObjectPublisher()

    private let registrar = ObservationRegistrar()
    /// The lock of the state below, and the order of updates from several threads.
    private let order = InstanceUpdates()
    private var lock: Lock { order.lock }
    /// Every match, in the query's order; ``results`` is a page of it.
    private var matches: [CollectionMatch<Element>]
    /// Each match by instance, to tell at once whether a write concerns it and to find it
    /// in `matches` by binary search.
    private var included: [InstanceKey: CollectionMatch<Element>]
    private var continuations: [Int: AsyncStream<[Element]>.Continuation] = [:]
    private var nextContinuation = 0
    private var failure: CollectionError?
    private var listenerToken: Int?

    /// Fetches the query's results and keeps them up to date.
    public init(_ query: CollectionQuery<Element>, in collection: CodableCollection<Element>) throws {
        self.query = query
        self.collection = collection
        matches = try collection.matches(of: query, paged: false, remembering: true)
        included = Dictionary(matches.lazy.map { ($0.instance, $0) }, uniquingKeysWith: { first, _ in first })
        listenerToken = collection.database.instanceObservers?.addListener { [weak self] path in
            self?.absorb(path)
        }
    }

    deinit {
        if let listenerToken { collection.database.instanceObservers?.removeListener(listenerToken) }
        for continuation in continuations.values { continuation.finish() }
    }

    /// Whether the results follow the database's changes.
    public var isLive: Bool { listenerToken != nil }

    /// The current results: filtered, sorted, paged.
    public var results: [Element] {
        registrar.access(self, keyPath: \.results)
        return lock.withLock { query.page(of: matches).map { $0.element } }
    }

    /// The last struct that changed but no longer decodes (it is left out of the results).
    public var lastError: CollectionError? {
        lock.withLock { failure }
    }

    /// The results now, then after every change that touches them.
    ///
    /// ```swift
    /// for await users in live.updates() { render(users) }
    /// ```
    public func updates() -> AsyncStream<[Element]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [Element].self, bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock { () -> Int in
            nextContinuation += 1
            continuations[nextContinuation] = continuation
            continuation.yield(query.page(of: matches).map { $0.element })
            return nextContinuation
        }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Re-reads the one struct a write touched.
    private func absorb(_ path: Path) {
        guard path.model == collection.modelKey,
            path.property != CollectionKeys.originProperty,
            path.property != CollectionKeys.fieldsProperty
        else { return }
        let instance = path.instance
        var remembered: (match: CollectionMatch<Element>, mark: RollbackMark?)?
        order.update(
            of: instance,
            read: { () -> (entry: (match: CollectionMatch<Element>, mark: RollbackMark?)?, error: CollectionError?) in
                let status: InstanceStatus? = collection.database.get(.status(model: collection.modelKey, instance: instance))
                guard status == .created else { return (nil, nil) }
                do {
                    let mark = collection.database.currentRollbackMark
                    let match = try collection.decode(instance)
                    return (query.filter.evaluate(match.element) ? (match, mark) : nil, nil)
                } catch let failure as CollectionError {
                    return (nil, failure)
                } catch let failure {
                    return (nil, .undecodableField(collection: collection.name, id: String(instance), key: "", reason: String(describing: failure)))
                }
            },
            needsChange: { read in read.entry != nil || read.error != nil || included[instance] != nil },
            announcing: { change in
                objectWillChange.send()
                registrar.withMutation(of: self, keyPath: \.results, change)
            },
            change: { read in
                if let error = read.error { failure = error }
                if let old = included.removeValue(forKey: instance) {
                    // The order is total (ties go by instance), so the old match sits just
                    // before where it would be inserted.
                    let index = insertionIndex(for: old) - 1
                    if matches.indices.contains(index), matches[index].instance == instance {
                        matches.remove(at: index)
                    } else {
                        matches.removeAll { $0.instance == instance }
                    }
                }
                if let entry = read.entry {
                    matches.insert(entry.match, at: insertionIndex(for: entry.match))
                    included[instance] = entry.match
                    remembered = entry
                }
                let page = query.page(of: matches).map { $0.element }
                for continuation in continuations.values { continuation.yield(page) }
            }
        )
        // Only an applied update keeps its struct as the base of the next save: an outdated read is none.
        if let remembered { collection.remember([remembered.match], seenAt: remembered.mark) }
    }

    /// Where `entry` goes: after every match that does not sort after it (lock held).
    private func insertionIndex(for entry: CollectionMatch<Element>) -> Int {
        var low = 0, high = matches.count
        while low < high {
            let middle = (low + high) / 2
            if query.precedes(entry, matches[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension CodableCollection where Element: Sendable {

    /// The live results of a query on this collection.
    ///
    /// ```swift
    /// let adults = try users.live(where: \.age >= 18, sortedBy: [.ascending(\.name)])
    /// ```
    public func live(where filter: CollectionFilter<Element> = .all, sortedBy sort: [CollectionSort<Element>] = [], offset: Int = 0, limit: Int? = nil) throws -> LiveCollection<Element> {
        try LiveCollection(CollectionQuery(where: filter, sortedBy: sort, offset: offset, limit: limit), in: self)
    }
}
