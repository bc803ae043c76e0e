/// A replica's outbox as its database stores it — the acknowledged watermark, the
/// exceptions (rejected or retried records), the imported ranges — and the scans over it.
/// One reader for ``Replica`` (what the next push sends) and for ``ReplicaStateSummary``
/// (what a read-only tool counts as pending), so that both count the same records.
struct OutboxReader {

    let history: any HistoryDatabase

    /// The clock ids whose records are the replica's own.
    let writers: Set<UInt32>

    /// The newest timestamp through which every own record was answered by the server.
    let acknowledgedThrough: Timestamp?

    /// Own records answered out of order: rejected ones (with a reason) and ones to retry.
    let exceptions: [OutboxException]

    /// Other replicas' records that came from an import and are still to push.
    let importedRanges: [ImportedRange]

    /// Own records after the watermark that need no push (see ``ReplicaState/settled``).
    let settled: Set<SyncRecord.Key>

    /// Reads the outbox's state from `history`.
    init(history: any HistoryDatabase, writers: Set<UInt32>) {
        self.history = history
        self.writers = writers
        acknowledgedThrough = history.get(ReplicaState.acknowledgedThrough)
        exceptions = history.get(ReplicaState.exceptions) ?? []
        importedRanges = history.get(ReplicaState.imported) ?? []
        settled = Set(history.get(ReplicaState.settled) ?? [])
    }

    /// Whether a record is the replica's own (not its bookkeeping).
    func isOwn(_ key: SyncRecord.Key) -> Bool {
        Self.isOwn(key, writers: writers)
    }

    /// Whether a record is own to a replica written with `writers`; reads nothing stored.
    static func isOwn(_ key: SyncRecord.Key, writers: Set<UInt32>) -> Bool {
        key.path.model != ReplicaState.model && writers.contains(key.timestamp.replica)
    }

    /// The keys the next pushes send, in order — imported records not rejected, records to
    /// retry, then own records after the watermark — at most `limit`.
    func pendingKeys(limit: Int) -> [SyncRecord.Key] {
        let rejected = Set(exceptions.filter { $0.rejection != nil }.map(\.key))
        let imported = importedRanges.flatMap(importedRecords(in:)).map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }
            .filter { !rejected.contains($0) }
        let retried = imported + exceptions.filter { $0.rejection == nil }.map(\.key)
        let scanned = scanPending(limit: max(0, limit - retried.count)).records.map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }
        return Array((retried + scanned).prefix(limit))
    }

    /// The records of an imported range, oldest first.
    func importedRecords(in range: ImportedRange) -> [Record] {
        let after = range.from.time == .min ? nil : Timestamp(time: range.from.time - 1, counter: .max, replica: .max)
        var found: [Record] = []
        for record in history.records(after: after) {
            if record.timestamp > range.through { break }
            if record.timestamp.replica == range.replica, record.path.model != ReplicaState.model {
                found.append(record)
            }
        }
        return found
    }

    /// Own records after the watermark that are not excepted, oldest first: at least
    /// `limit` (whole groups of one timestamp) or all; the timestamp the scan covered; and
    /// whether it passed records of data (not only the replica's own state).
    func scanPending(limit: Int) -> (records: [Record], scannedThrough: Timestamp?, sawData: Bool) {
        let excepted = Set(exceptions.map(\.key)).union(settled)
        var found: [Record] = []
        var after = acknowledgedThrough
        var pageLimit = 256
        var sawData = false
        guard limit > 0 else { return ([], after, false) }
        while found.count < limit {
            let page = history.records(after: after, limit: pageLimit)
            var usable = page[...]
            if page.count == pageLimit, let last = page.last?.timestamp {
                // Records sharing the last timestamp may go on past the page: next time.
                usable = page.prefix { $0.timestamp != last }
                if usable.isEmpty {
                    pageLimit *= 2
                    continue
                }
            }
            var index = usable.startIndex
            while index < usable.endIndex, found.count < limit {
                let timestamp = usable[index].timestamp
                while index < usable.endIndex, usable[index].timestamp == timestamp {
                    let record = usable[index]
                    let key = SyncRecord.Key(path: record.path, timestamp: record.timestamp)
                    if isOwn(key), !excepted.contains(key) { found.append(record) }
                    if record.path.model != ReplicaState.model { sawData = true }
                    index += 1
                }
                after = timestamp
            }
            if page.count < pageLimit { break }
        }
        return (found, after, sawData)
    }
}
