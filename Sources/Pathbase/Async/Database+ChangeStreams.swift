extension InstanceObservers {

    /// A stream of what `transform` makes of each written path (`nil` skips the path),
    /// that removes its listener when it ends: when the iterating task is cancelled or the
    /// stream is released.
    func stream<Element: Sendable>(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        _ transform: @escaping @Sendable (Path) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let token = addListener { path in
            if let element = transform(path) { continuation.yield(element) }
        }
        continuation.onTermination = { [weak self] _ in self?.removeListener(token) }
        return stream
    }
}

extension Database {

    /// The changes of every instance of a model from now on, as an `AsyncSequence`.
    ///
    /// ```swift
    /// let observed = ObservedDatabase(wrapping: InMemoryDatabase())
    /// for await change in try observed.changes(of: Person.self) {
    ///     print("person", change.id, "changed property", change.property)
    /// }
    /// ```
    ///
    /// One element per write, in the order of the writes, buffered until read. The stream
    /// ends when the task iterating it is cancelled (or the stream is released), and then
    /// leaves no observer behind. Throws ``ChangeStreamError/notObserved`` unless the
    /// database is observed (an ``ObservedDatabase``, ``ObservableDatabase`` or a wrapper
    /// of one).
    public func changes<Model: ModelProtocol>(of type: Model.Type) throws(ChangeStreamError) -> AsyncStream<InstanceChange<Model>> {
        let observers = try observersForStreams()
        return observers.stream(pathChanges(InstanceChange<Model>.self, model: Model.modelId, instance: nil))
    }

    /// The changes of one instance from now on, as an `AsyncSequence`.
    ///
    /// ```swift
    /// for await change in try observed.changes(to: alice) {
    ///     print(change.isStatusChange ? "created or deleted" : "property \(change.property) set")
    /// }
    /// ```
    ///
    /// As ``changes(of:)``, for the instance with `instance`'s id only.
    public func changes<Model: ModelProtocol>(to instance: Model) throws(ChangeStreamError) -> AsyncStream<InstanceChange<Model>> {
        let observers = try observersForStreams()
        return observers.stream(pathChanges(InstanceChange<Model>.self, model: Model.modelId, instance: instance.id))
    }

    private func observersForStreams() throws(ChangeStreamError) -> InstanceObservers {
        guard let observers = instanceObservers else { throw .notObserved }
        return observers
    }
}

extension Database where Self: Sendable {

    /// The ids of a query's results, now and after every change of them, as an
    /// `AsyncSequence`.
    ///
    /// ```swift
    /// let adults = QueryDescriptor<Person>(where: \.age >= 18, sortBy: \.name)
    /// for await ids in try observed.results(of: adults) {
    ///     print(ids.count, "adults")
    /// }
    /// ```
    ///
    /// The first element is the current results; then one comes after each write that
    /// changes them or a matching instance (the results of a ``LiveQuery``). Only the newest
    /// results wait to be read: a slow reader skips states it was too late for. Fetch the
    /// models by id where you use them. The stream ends when the iterating task is cancelled
    /// (or the stream is released), and the query then stops observing. Throws
    /// ``ChangeStreamError/notObserved`` unless the database is observed.
    public func results<Model: ModelProtocol>(of query: QueryDescriptor<Model>) throws(ChangeStreamError) -> AsyncStream<[InstanceKey]> {
        guard instanceObservers != nil else { throw .notObserved }
        let live = LiveQuery(query, in: self)
        let results = LiveResultIds(ids: { live.results.map(\.id) }, stop: { live.stopUpdating() })
        let (stream, continuation) = AsyncStream<[InstanceKey]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield(results.ids())
        // The query holds the continuation and the continuation's end stops the query:
        // the cycle is broken when the stream ends.
        live.onResultsChange { continuation.yield(results.ids()) }
        continuation.onTermination = { _ in results.stop() }
        return stream
    }
}

/// What a change stream makes of a written path: a change of an instance of `model` (of
/// `instance` only, if given), or `nil`. Generic over the change only, never the model
/// type, whose metatype may not cross threads.
private func pathChanges<Change: PathChange>(_ type: Change.Type, model: ModelKey, instance: InstanceKey?) -> @Sendable (Path) -> Change? {
    { path in
        guard path.model == model, instance == nil || path.instance == instance else { return nil }
        return Change(id: path.instance, property: path.property)
    }
}

/// A live query's result ids and its stop, without its model type, for the `Sendable`
/// closures of a results stream.
private final class LiveResultIds: @unchecked Sendable {
    // @unchecked: both closures call a LiveQuery, which is safe from any thread.
    let ids: () -> [InstanceKey]
    let stop: () -> Void

    init(ids: @escaping () -> [InstanceKey], stop: @escaping () -> Void) {
        self.ids = ids
        self.stop = stop
    }
}
