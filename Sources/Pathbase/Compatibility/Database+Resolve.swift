extension Database {

    /// StateModel's name for reading an instance of another database (an editing context's
    /// instance in the database it edits, say) in this one: ``get(id:of:)`` with its id.
    ///
    /// ```swift
    /// let stored = database.resolve(draft)
    /// ```
    @available(*, deprecated, message: "Use get(id:of:) with the instance's id")
    public func resolve<Instance: ModelProtocol>(_ instance: Instance) -> Instance? {
        get(id: instance.id, of: Instance.self)
    }
}
