extension Database {

    /// The concurrent writes of each property of a model instance (and of its status) that
    /// no later write replaced: what two replicas wrote without having seen each other's
    /// value, and what the property kept.
    ///
    /// ```swift
    /// for conflict in database.conflicts(of: note) {
    ///     print(conflict) // "1/7/2: "Draft" by replica 3 at …, "Final" by replica 9 at … (kept); kept Final"
    /// }
    /// ```
    ///
    /// Pathbase knows what a replica had seen from the frontiers a ``Replica`` records when
    /// it pulls (see ``Replica/pull()``): a write is concurrent with an older one of another
    /// replica when its writer had not pulled it. Writes of one replica never conflict, and
    /// a write whose writer recorded no frontier (an older version of Pathbase, a database
    /// that never pulled, an import) counts as having seen everything before it. Empty for
    /// a database without history.
    public func conflicts<Model: ModelWithPropertyIds>(of instance: Model) -> [PropertyConflict] {
        ([PropertyKey.instanceId] + Model.PropertyId.allCases.map(\.rawValue)).compactMap { conflict(at: instance.path(of: $0)) }
    }

    /// The concurrent writes of one path that no later write replaced, or `nil` (see
    /// ``conflicts(of:)``).
    ///
    /// ```swift
    /// if let conflict = database.conflict(at: note.path(of: .text)) { print(conflict.losingWrites) }
    /// ```
    public func conflict(at path: Path) -> PropertyConflict? {
        guard let history = historyDatabase else { return nil }
        return PathConcurrency(path: path, in: history).conflict()
    }

    /// Writes a losing value of a conflict back as a new write, which then wins as the
    /// newest (and resolves the conflict: ``conflicts(of:)`` no longer lists it).
    ///
    /// ```swift
    /// if let lost = database.conflict(at: path)?.losingWrites.first {
    ///     database.restore(lost)
    /// }
    /// ```
    ///
    /// The write goes through this database like any other: observers see it, an
    /// ``UndoableDatabase`` can undo it, a ``Replica`` pushes it.
    public func restore(_ write: ConcurrentWrite) {
        set(erased: write.value, for: write.record.path)
    }
}

extension HistoryDatabase {

    /// Every record of a path that was written concurrently with another one of it, oldest
    /// first, including those later writes replaced: what history tools mark (`pathbase
    /// history`). See ``Database/conflicts(of:)`` for how concurrency is known.
    ///
    /// ```swift
    /// let concurrent = Set(database.concurrentWrites(at: path).map(\.timestamp))
    /// ```
    public func concurrentWrites(at path: Path) -> [Record] {
        let concurrency = PathConcurrency(path: path, in: self)
        return concurrency.concurrentIndexes.sorted().map { concurrency.records[$0] }
    }
}
