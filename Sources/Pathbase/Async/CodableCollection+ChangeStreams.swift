extension CodableCollection where Element: Sendable {

    /// A query's results on this collection, now and after every change of them, as an
    /// `AsyncSequence` that owns its live query.
    ///
    /// ```swift
    /// let users = ObservedDatabase(wrapping: file).collection(User.self)
    /// for await adults in try users.results(where: \.age >= 18, sortedBy: [.ascending(\.name)]) {
    ///     print(adults.map(\.name))
    /// }
    /// ```
    ///
    /// The first element is the current results; then one comes after each write that
    /// changes them (the results of a ``LiveCollection``). Only the newest results wait to be
    /// read. Unlike ``LiveCollection/updates()``, which lives as long as you keep its
    /// `LiveCollection`, this stream keeps its own: when the iterating task is cancelled or
    /// the stream is released, it stops observing and leaves no observer behind. Throws
    /// ``ChangeStreamError/notObserved`` unless the database is observed, and a
    /// ``CollectionError`` if the current results do not decode.
    public func results(
        where filter: CollectionFilter<Element> = .all,
        sortedBy sort: [CollectionSort<Element>] = [],
        offset: Int = 0,
        limit: Int? = nil
    ) throws -> AsyncStream<[Element]> {
        guard database.instanceObservers != nil else { throw ChangeStreamError.notObserved }
        let live = try live(where: filter, sortedBy: sort, offset: offset, limit: limit)
        let updates = live.updates()
        let (stream, continuation) = AsyncStream<[Element]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The forwarding task keeps `live` (and so its observer) while the stream is read;
        // the stream's end cancels it, which ends `updates` and releases `live`.
        let forwarding = Task {
            for await page in updates {
                continuation.yield(page)
            }
            continuation.finish()
            withExtendedLifetime(live) {}
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}
