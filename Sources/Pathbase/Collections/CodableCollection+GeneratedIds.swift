extension CodableCollection where Element.ID == Int {

    /// A new integer id, unique across replicas without coordination: the replica's number
    /// in the high 32 bits, a counter of this database in the low 31.
    ///
    /// ```swift
    /// let order = Order(id: try orders.nextId(), total: 12.5)
    /// try orders.save(order)
    /// ```
    ///
    /// The replica number is the history clock's replica id on a ``HistoryDatabase``, else a
    /// random number; both are kept in the database with the counter, so ids keep counting
    /// up after reopening. The counter is local to the database: it is not meant to be
    /// synchronized.
    public func nextId() throws -> Int {
        try generatorLock.withLock {
            try database.inBatchIfSupported { () throws -> Int in
                let replicaPath = Path(model: CollectionKeys.counterModel, instance: modelKey, property: 1)
                let counterPath = Path(model: CollectionKeys.counterModel, instance: modelKey, property: 2)
                let replica: Int
                if let stored: Int = database.get(replicaPath) {
                    replica = stored
                } else {
                    replica = Int(database.historyDatabase?.clock.replica ?? .random(in: 1 ... .max))
                    database.set(replica, for: replicaPath)
                    database.set(InstanceStatus.created, for: .status(model: CollectionKeys.counterModel, instance: modelKey))
                }
                let counter = (database.get(counterPath) ?? 0) + 1
                guard counter < 1 << 31 else { throw CollectionError.idGeneratorExhausted(collection: name) }
                database.set(counter, for: counterPath)
                return replica << 31 | counter
            }
        }
    }
}
