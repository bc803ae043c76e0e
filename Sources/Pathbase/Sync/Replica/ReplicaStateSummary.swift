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
        // The same reader as Replica's: imported ranges, retries, whole timestamp groups.
        let outbox = OutboxReader(history: history, writers: writers)
        let exceptions = outbox.exceptions
        pending = outbox.pendingKeys(limit: pendingLimit).count
        rejected = exceptions.compactMap { exception in exception.rejection.map { (exception.key, $0) } }.sorted { $0.key < $1.key }
        pullCursor = history.get(ReplicaState.pullCursor) ?? 0
        awaitedAssets = history.get(ReplicaState.awaitedAssets) ?? []
    }
}
