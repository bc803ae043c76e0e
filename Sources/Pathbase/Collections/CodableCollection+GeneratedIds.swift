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
    /// synchronized. Every handle on the same storage, on any thread, gets ids of its own.
    /// An id handed out in a batch that rolled back is not handed out again while the
    /// database is open, and never once a struct with it is stored.
    public func nextId() throws -> Int {
        // The batch first, then the lock: the order of a caller that asks for an id inside
        // its own batch, so the two never wait for each other the other way round.
        try database.inBatchIfSupported { () throws -> Int in
            try GeneratedIdCounters.shared.withCounter(storage: database.storage, model: modelKey) { highest throws -> Int in
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
                // The stored counter may have been taken back after ids were handed out.
                var counter = max(database.get(counterPath) ?? 0, highest) + 1
                while counter < 1 << 31, database.get(.status(model: modelKey, instance: (replica << 31 | counter).collectionInstanceKey)) as InstanceStatus? != nil {
                    counter += 1
                }
                guard counter < 1 << 31 else { throw CollectionError.idGeneratorExhausted(collection: name) }
                database.set(counter, for: counterPath)
                highest = counter
                return replica << 31 | counter
            }
        }
    }
}
