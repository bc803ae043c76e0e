import PathbaseServer
import PostgresNIO

/// Compaction (``CompactingStore``): each step is one statement, its own transaction.
extension PostgresSyncServerStore: CompactingStore {

    public func compactionHorizon(of account: AccountID) async throws -> Int64 {
        try await run { [self] in
            let rows = try await client.query("SELECT compacted_through FROM accounts WHERE id = \(account.rawValue)", logger: logger)
            for try await horizon in rows.decode(Int64.self) { return horizon }
            throw SyncServerError.unknownAccount(account)
        }
    }

    /// Removes, in one statement, the older record of each pair of the same path and writer
    /// among the step's records and those up to its end, and moves `compacted_through`.
    ///
    /// The step's bounds come from the statement's snapshot, which holds every record up to
    /// the `last_sequence` it reads. It takes no lock before it deletes: an append that looks
    /// up a key being removed finds it (the delete is not committed) and stores nothing, so
    /// it never waits for the step, and the step's final update of the account's row waits
    /// at most for one append. Two servers compacting at once remove the same records; the
    /// horizon only moves forward.
    public func compactStep(of account: AccountID, through end: Int64, batchSize: Int) async throws -> CompactionStep {
        let batch = Int64(min(max(1, batchSize), 1_000_000))
        return try await run { [self] in
            let rows = try await client.query(
                """
                WITH bounds AS (
                    SELECT compacted_through AS start, LEAST(compacted_through + \(batch), \(end), last_sequence) AS stop
                    FROM accounts WHERE id = \(account.rawValue)),
                older AS (
                    SELECT DISTINCT CASE WHEN (o.time, o.counter) < (n.time, n.counter) THEN o.sequence ELSE n.sequence END AS sequence
                    FROM bounds, records n JOIN records o
                        ON o.account = n.account AND o.model = n.model AND o.instance = n.instance AND o.property = n.property AND o.replica = n.replica
                    WHERE n.account = \(account.rawValue) AND n.sequence > bounds.start AND n.sequence <= bounds.stop
                      AND o.sequence <= bounds.stop AND o.sequence <> n.sequence),
                removed AS (
                    DELETE FROM records r USING older WHERE r.account = \(account.rawValue) AND r.sequence = older.sequence RETURNING 1),
                moved AS (
                    UPDATE accounts SET compacted_through = GREATEST(compacted_through, bounds.stop) FROM bounds
                    WHERE id = \(account.rawValue) AND bounds.stop > bounds.start RETURNING compacted_through)
                SELECT coalesce((SELECT compacted_through FROM moved), bounds.start), (SELECT count(*) FROM removed) FROM bounds
                """, logger: logger)
            for try await (horizon, removed) in rows.decode((Int64, Int64).self) {
                return CompactionStep(horizon: horizon, removed: Int(removed))
            }
            throw SyncServerError.unknownAccount(account)
        }
    }
}
