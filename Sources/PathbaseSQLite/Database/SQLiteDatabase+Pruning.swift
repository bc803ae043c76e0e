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
                let delete = try Statement(sql: """
                    DELETE FROM records
                    WHERE (time, counter, replica) <= (?1, ?2, ?3)
                      AND EXISTS (
                        SELECT 1 FROM records AS newer
                        WHERE newer.model = records.model AND newer.property = records.property
                          AND newer.instance = records.instance
                          AND (newer.time, newer.counter, newer.replica) > (records.time, records.counter, records.replica)
                          AND (newer.time, newer.counter, newer.replica) <= (?1, ?2, ?3))
                    """, connection: handle)
                defer { delete.finalize() }
                delete.bind(timestamp.time, at: 1)
                delete.bind(Int64(timestamp.counter), at: 2)
                delete.bind(Int64(timestamp.replica), at: 3)
                try execute(delete)
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
