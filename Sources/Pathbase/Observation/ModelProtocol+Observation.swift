#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

extension ModelProtocol {

    /// The publisher that fires before a value of this instance changes.
    ///
    /// ```swift
    /// let database = ObservableDatabase(wrapping: InMemoryDatabase())
    /// let item: Item = database.create(id: 1)
    /// let subscription = item.objectWillChange.sink { print("will change") }
    /// Item(database: database, id: 1).title = "New" // prints "will change"
    /// ```
    ///
    /// In an ``ObservableDatabase`` (or a wrapper forwarding its observers) every handle of
    /// the same instance returns an equal publisher, which fires on the writing thread for
    /// any change of the instance. In a database that is not observed it never fires.
    public var objectWillChange: InstanceWillChangePublisher {
        InstanceWillChangePublisher(observers: database.instanceObservers, model: Self.modelId, instance: id)
    }
}
