extension CodableCollection where Element.ID == Int {

    /// A new integer id, unique across replicas without coordination: the replica's number
    /// in the high 32 bits, a counter of this database in the low 31.
    ///
    /// ```swift
    /// let order = Order(id: try orders.nextId(), total: 12.5)
    /// try orders.save(order)
    /// ```
    ///
    /// The replica number is the history clock's replica id on a ``HistoryDatabase`` (also
    /// through wrappers and editing contexts), else a random number kept in the database.
    /// Each replica keeps its counter under a path of its own, so ids keep counting up after
    /// reopening, and the counters other replicas synchronize are never taken for this
    /// one's. Every handle on the same storage, on any thread, gets ids of its own.
    /// An id handed out in a batch that rolled back is not handed out again while the
    /// database is open, and never once a struct with it is stored.
    public func nextId() throws -> Int {
        // The batch first, then the lock: the order of a caller that asks for an id inside
        // its own batch, so the two never wait for each other the other way round.
        try database.inBatchIfSupported { () throws -> Int in
            try GeneratedIdCounters.shared.withCounter(storage: database.storage, model: modelKey) { highest throws -> Int in
                let sharedReplicaPath = Path(model: CollectionKeys.counterModel, instance: modelKey, property: 1)
                let sharedCounterPath = Path(model: CollectionKeys.counterModel, instance: modelKey, property: 2)
                let replica: Int
                let counterPath: Path
                // Ids this replica counted at the shared path, before it had a counter of its own.
                var counted = 0
                if let clock = database.writeClock {
                    replica = Int(clock.replica)
                    counterPath = Path(model: CollectionKeys.counterModel, instance: modelKey, property: CollectionKeys.replicaCounterProperty(clock.replica))
                } else if let storedReplica: Int = database.get(sharedReplicaPath) {
                    (replica, counterPath) = (storedReplica, sharedCounterPath)
                } else {
                    (replica, counterPath) = (Int.random(in: 1 ... Int(UInt32.max)), sharedCounterPath)
                    database.set(replica, for: sharedReplicaPath)
                }
                let stored: Int? = database.get(counterPath)
                if stored == nil {
                    // Ids this replica counted at the shared path (before counters had a path
                    // per replica) are taken; another replica's, synchronized there, are not.
                    if counterPath != sharedCounterPath, database.get(sharedReplicaPath) == replica {
                        counted = database.get(sharedCounterPath) ?? 0
                    }
                    database.set(InstanceStatus.created, for: .status(model: CollectionKeys.counterModel, instance: modelKey))
                }
                // The stored counter may have been taken back after ids were handed out.
                var counter = max(stored ?? 0, counted, highest) + 1
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
