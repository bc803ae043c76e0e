extension ModelWithPropertyIds {

    /// The values one property of this instance held, oldest first, with their timestamps.
    ///
    /// ```swift
    /// for change in person.history(of: .age, as: Int.self) {
    ///     print(change.timestamp.date, change.value)
    /// }
    /// ```
    ///
    /// Records of another type than `Value` are skipped. Empty when the instance lives in a
    /// database that keeps no history; for an instance in an editing context, the history
    /// of the database the context commits to.
    public func history<Value: DatabaseValue>(of property: PropertyId, as type: Value.Type = Value.self) -> [Timestamped<Value>] {
        historyDatabase?.history(of: path(of: property), as: type) ?? []
    }

    /// Every record of this instance — its status and all its properties — oldest first.
    public func history() -> [Record] {
        guard let database = historyDatabase else { return [] }
        let properties = [PropertyKey.instanceId] + PropertyId.allCases.map(\.rawValue)
        return
            properties
            .flatMap { database.records(at: path(of: $0)) }
            .sorted(by: Record.chronological)
    }

    private var historyDatabase: (any HistoryDatabase)? {
        if let context = database as? EditingContext {
            return context.database.historyDatabase
        }
        return database.historyDatabase
    }
}
