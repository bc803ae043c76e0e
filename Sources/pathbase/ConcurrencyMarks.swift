import Pathbase

/// The marks `pathbase history` puts after concurrent writes (see
/// `HistoryDatabase.concurrentWrites(at:)`): which were concurrent, and which one of a
/// path its value is now.
struct ConcurrencyMarks {
    private var concurrent: Set<SyncRecord.Key> = []
    private var kept: Set<SyncRecord.Key> = []

    init(_ records: [Record], in database: any HistoryDatabase) {
        for path in Set(records.map(\.path)) {
            let writes = database.concurrentWrites(at: path)
            concurrent.formUnion(writes.map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) })
            if let newest = database.latestRecord(at: path), writes.contains(where: { $0.timestamp == newest.timestamp }) {
                kept.insert(SyncRecord.Key(path: path, timestamp: newest.timestamp))
            }
        }
    }

    /// What to print after a record's line.
    func mark(of record: Record) -> String {
        let key = SyncRecord.Key(path: record.path, timestamp: record.timestamp)
        guard concurrent.contains(key) else { return "" }
        return kept.contains(key) ? "  (concurrent, kept)" : "  (concurrent)"
    }
}
