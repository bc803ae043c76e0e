import Foundation
import GRDBSQLite
import Pathbase

extension SQLiteDatabase: PrunableHistoryDatabase {

    /// Removes the history that the state at `timestamp` and later does not need, then
    /// compacts the file so that it shrinks.
    ///
    /// ```swift
    /// try database.prune(before: Date().addingTimeInterval(-30 * 86400))
    /// ```
    ///
    /// For every path, the newest record at or before `timestamp` stays (it is the state
    /// at that moment), and so does every later record; older ones are deleted in one
    /// transaction. ``historyStart`` becomes `timestamp`: views of earlier moments show an
    /// empty database. Without history there is nothing to prune. Not allowed inside a batch.
    public func prune(before timestamp: Timestamp) throws {
        try lock.withLock { () throws(SQLiteDatabaseError) in
            guard !transaction.inBatch else {
                throw .sqlite(code: SQLITE_MISUSE, message: "prune(before:) cannot run inside a batch")
            }
            let handle = try openHandle()
            guard keepsHistory else { return }
            try run("BEGIN IMMEDIATE", on: handle)
            do throws(SQLiteDatabaseError) {
                // A superseded record goes if a newer record of its path, superseded or
                // current (newer than all of them), is also at or before `timestamp`; its
                // time goes with it.
                let deleteRecords = try Statement(sql: """
                    DELETE FROM superseded_records AS r
                    WHERE (time, counter, replica) <= (?1, ?2, ?3)
                      AND (EXISTS (
                        SELECT 1 FROM superseded_records AS newer
                        WHERE newer.model = r.model AND newer.instance = r.instance AND newer.property = r.property
                          AND (newer.time, newer.counter, newer.replica) > (r.time, r.counter, r.replica)
                          AND (newer.time, newer.counter, newer.replica) <= (?1, ?2, ?3))
                      OR EXISTS (
                        SELECT 1 FROM current_values AS c
                        WHERE c.model = r.model AND c.instance = r.instance AND c.property = r.property
                          AND (c.time, c.counter, c.replica) <= (?1, ?2, ?3)))
                    """, connection: handle)
                defer { deleteRecords.finalize() }
                let deleteTimes = try Statement(sql: """
                    DELETE FROM record_times AS t
                    WHERE (time, counter, replica) <= (?1, ?2, ?3)
                      AND NOT \(Schema.holdsRecord("current_values") { "t.\($0)" })
                      AND NOT \(Schema.holdsRecord("superseded_records") { "t.\($0)" })
                    """, connection: handle)
                defer { deleteTimes.finalize() }
                for delete in [deleteRecords, deleteTimes] {
                    delete.bind(timestamp, at: 1)
                    try execute(delete)
                }
                let start = max(try readPrunedBefore(handle) ?? timestamp, timestamp)
                let store = try Statement(sql: "INSERT OR REPLACE INTO pathbase_meta(key, value) VALUES ('prunedBefore', ?)", connection: handle)
                defer { store.finalize() }
                store.bind("\(start.time):\(start.counter):\(start.replica)", at: 1)
                try execute(store)
                try run("COMMIT", on: handle)
            } catch {
                rollback()
                throw error
            }
            // Give the freed pages back to the file system.
            try run("VACUUM", on: handle)
        }
    }

    /// The history start stored by pruning, if the file was pruned.
    func readPrunedBefore(_ handle: OpaquePointer) throws(SQLiteDatabaseError) -> Timestamp? {
        let select = try Statement(sql: "SELECT value FROM pathbase_meta WHERE key = 'prunedBefore'", connection: handle)
        defer { select.finalize() }
        guard try select.hasRow() else { return nil }
        let parts = select.string(at: 0).split(separator: ":")
        guard parts.count == 3, let time = Int64(parts[0]), let counter = UInt32(parts[1]), let replica = UInt32(parts[2]) else {
            throw .corrupt(path: path ?? ":memory:", reason: "the stored history start '\(select.string(at: 0))' is not a timestamp")
        }
        return Timestamp(time: time, counter: counter, replica: replica)
    }

    private func run(_ sql: String, on handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }
}
