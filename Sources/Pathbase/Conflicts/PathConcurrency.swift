/// Which records of one path were written concurrently, by their writers' frontiers (see
/// ``WriterProvenance``): the one computation behind ``Database/conflict(at:)`` and
/// ``HistoryDatabase/concurrentWrites(at:)``.
struct PathConcurrency {

    /// The path's records, oldest first.
    let records: [Record]

    /// For each record, the indexes of the older records it is concurrent with.
    let olderConcurrent: [[Int]]

    /// Reads the records of `path` and their writers' frontiers.
    init(path: Path, in history: any HistoryDatabase) {
        let records = history.records(at: path).sorted { $0.timestamp < $1.timestamp }
        let frontiers = WriterProvenance.frontiers(ofWritersOf: records, in: history)
        self.records = records
        self.olderConcurrent = records.indices.map { later in
            records.indices.prefix(later).filter { WriterProvenance.isConcurrent(records[$0], records[later], frontiers: frontiers) }
        }
    }

    /// The indexes of the records concurrent with at least one other.
    var concurrentIndexes: Set<Int> {
        var indexes: Set<Int> = []
        for (later, older) in olderConcurrent.enumerated() where !older.isEmpty {
            indexes.insert(later)
            indexes.formUnion(older)
        }
        return indexes
    }

    /// The newest concurrent writes, unless a later write replaced them: the newest record
    /// concurrent with older ones, with those (the newest of each replica). A later write
    /// of a value that does not merge (newest-wins, as ``Database/restore(_:)`` writes)
    /// resolves it; a merge policy's states keep it listed beside their merged result.
    func conflict(field: String? = nil) -> PropertyConflict? {
        guard let latest = olderConcurrent.lastIndex(where: { !$0.isEmpty }), let kept = records.last else { return nil }
        if records[(latest + 1)...].contains(where: { MergeableTypes.mergeable($0.value) == nil }) { return nil }
        var newestByReplica: [UInt32: Int] = [:]
        for index in olderConcurrent[latest] + [latest] {
            newestByReplica[records[index].timestamp.replica] = max(index, newestByReplica[records[index].timestamp.replica] ?? index)
        }
        let writes = newestByReplica.values.sorted().map {
            ConcurrentWrite(record: records[$0], isKept: records[$0].timestamp == kept.timestamp)
        }
        return PropertyConflict(path: kept.path, field: field, writes: writes, kept: kept)
    }
}
