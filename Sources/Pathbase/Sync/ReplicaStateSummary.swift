/// A replica's sync state read from its database without making a ``Replica`` (which may
/// write its identity): what a read-only browser such as Pathbase Studio shows.
package struct ReplicaStateSummary {

    /// The replica's id.
    package var id: UInt32

    /// Own records not yet acknowledged by the server (counted up to the limit asked for),
    /// including those to retry.
    package var pending: Int

    /// Records the server refused, with its reasons, oldest first.
    package var rejected: [(key: SyncRecord.Key, reason: String)]

    /// The server sequence number of the last pulled record; 0 before the first pull.
    package var pullCursor: Int64

    /// Assets that pulled records reference, not downloaded yet.
    package var awaitedAssets: [Asset]

    /// The state of the replica kept in `history`, or `nil` when it never was one. Pending
    /// records are counted up to `pendingLimit`.
    package init?(of history: any HistoryDatabase, pendingLimit: Int) {
        guard let id: UInt32 = history.get(ReplicaState.id) else { return nil }
        self.id = id
        let writers = Set((history.get(ReplicaState.writers) as [UInt32]?) ?? [id])
        let exceptions: [OutboxException] = history.get(ReplicaState.exceptions) ?? []
        let watermark: Timestamp? = history.get(ReplicaState.acknowledgedThrough)
        let excepted = Set(exceptions.map(\.key))
        // Own records after the watermark, read a page at a time up to the limit.
        var pending = exceptions.count { $0.rejection == nil }
        var after = watermark
        scan: while pending < pendingLimit {
            let page = history.records(after: after, limit: 1000)
            for record in page {
                after = record.timestamp
                guard record.path.model != ReplicaState.model, writers.contains(record.timestamp.replica),
                    !excepted.contains(SyncRecord.Key(path: record.path, timestamp: record.timestamp))
                else { continue }
                pending += 1
                if pending >= pendingLimit { break scan }
            }
            if page.count < 1000 { break }
        }
        self.pending = pending
        rejected = exceptions.compactMap { exception in exception.rejection.map { (exception.key, $0) } }.sorted { $0.key < $1.key }
        pullCursor = history.get(ReplicaState.pullCursor) ?? 0
        awaitedAssets = history.get(ReplicaState.awaitedAssets) ?? []
    }
}
