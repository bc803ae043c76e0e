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
        try locked { () throws(SQLiteDatabaseError) in
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
                let deleteRecords = try Statement(
                    sql: """
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
                let deleteTimes = try Statement(
                    sql: """
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
                try pruneRuns(before: timestamp, handle: handle)
                let start = max(try readPrunedBefore(handle) ?? timestamp, timestamp)
                try writeMetaTimestamp("prunedBefore", start, handle)
                try run("COMMIT", on: handle)
            } catch {
                rollback()
                throw error
            }
            // Give the freed pages back to the file system.
            try run("VACUUM", on: handle)
        }
    }

    /// Takes the records pruned away out of the runs that may hold them: a run keeps its
    /// records still stored (current, superseded, or after `timestamp`), and goes when none is.
    private func pruneRuns(before timestamp: Timestamp, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let select = try Statement(sql: "SELECT rowid, time, replica, records FROM record_runs WHERE time <= ?1", connection: handle)
        defer { select.finalize() }
        select.bind(timestamp.time, at: 1)
        var changed: [(row: Int64, kept: [RecordRun.Record])] = []
        var recent = RecentBody()
        while try select.hasRow() {
            let row = select.int64(at: 0)
            let first = Timestamp(time: select.int64(at: 1), counter: 0, replica: UInt32(truncatingIfNeeded: select.int64(at: 2)))
            guard let records = select.withBytes(at: 3, { RecordRun.decode($0, firstTime: first.time, firstReplica: first.replica) }) else {
                throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed run of records")
            }
            var kept: [RecordRun.Record] = []
            for record in records {
                if record.timestamp > timestamp {
                    kept.append(record)
                } else if try recordValue(at: record.path, timestamp: record.timestamp, recent: &recent) != nil {
                    kept.append(record)
                }
            }
            if kept.count < records.count { changed.append((row, kept)) }
        }
        let delete = try Statement(sql: "DELETE FROM record_runs WHERE rowid = ?1", connection: handle)
        defer { delete.finalize() }
        let update = try Statement(sql: "UPDATE record_runs SET time = ?2, counter = ?3, replica = ?4, end_time = ?5, records = ?6 WHERE rowid = ?1", connection: handle)
        defer { update.finalize() }
        for (row, kept) in changed {
            guard let first = kept.first else {
                delete.bind(row, at: 1)
                try execute(delete)
                continue
            }
            update.bind(row, at: 1)
            update.bind(first.timestamp, at: 2)
            update.bind(kept.last?.timestamp.time ?? first.timestamp.time, at: 5)
            update.bind(bytes: RecordRun.encode(kept[...]), at: 6)
            try execute(update)
        }
    }

    /// The history start stored by pruning, if the file was pruned.
    func readPrunedBefore(_ handle: OpaquePointer) throws(SQLiteDatabaseError) -> Timestamp? {
        try readMetaTimestamp("prunedBefore", handle)
    }

    /// A timestamp stored in `pathbase_meta` under `key` (as "time:counter:replica"), if any.
    func readMetaTimestamp(_ key: String, _ handle: OpaquePointer) throws(SQLiteDatabaseError) -> Timestamp? {
        let select = try Statement(sql: "SELECT value FROM pathbase_meta WHERE key = ?1", connection: handle)
        defer { select.finalize() }
        select.bind(key, at: 1)
        guard try select.hasRow() else { return nil }
        let parts = select.string(at: 0).split(separator: ":")
        guard parts.count == 3, let time = Int64(parts[0]), let counter = UInt32(parts[1]), let replica = UInt32(parts[2]) else {
            throw .corrupt(path: path ?? ":memory:", reason: "the stored \(key) '\(select.string(at: 0))' is not a timestamp")
        }
        return Timestamp(time: time, counter: counter, replica: replica)
    }

    /// Stores a timestamp in `pathbase_meta` under `key`.
    func writeMetaTimestamp(_ key: String, _ timestamp: Timestamp, _ handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let store = try Statement(sql: "INSERT OR REPLACE INTO pathbase_meta(key, value) VALUES (?1, ?2)", connection: handle)
        defer { store.finalize() }
        store.bind(key, at: 1)
        store.bind("\(timestamp.time):\(timestamp.counter):\(timestamp.replica)", at: 2)
        try execute(store)
    }

    private func run(_ sql: String, on handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }
}
