/// A history database that can remove records it stored, so that a batch over it that
/// throws leaves no trace, as a transaction's rollback does: ``UndoableDatabase`` takes a
/// batch back this way over a database without batches of its own. Writing the earlier
/// values again as new records would make them newer than the edits of other replicas
/// made meanwhile, and synchronization would carry them over those edits.
package protocol RecordWithdrawingDatabase: HistoryDatabase {

    /// Whether the database holds the record of `path` with exactly this timestamp.
    func holdsRecord(at path: Path, timestamp: Timestamp) -> Bool

    /// Removes these records (those it holds); the newest remaining record of each path
    /// becomes its current value.
    func withdraw(_ records: [SyncRecord.Key])
}
