import Foundation
import GRDBSQLite
import Pathbase

extension SQLiteDatabase {

    /// Removes, for each of `paths`, the superseded records that ``Options/retention`` does
    /// not keep and that the database's replica may lose (``HistoryDatabase/retentionBound``).
    /// Runs in the transaction of the writes, before it commits: each path's records are
    /// found through the primary key of `superseded_records`, so a write pays for its own
    /// paths only. `record_runs` keeps the removed records' times (a few bytes each) until
    /// ``prune(before:)``; readers skip them.
    func applyRetention(to paths: some Collection<Pathbase.Path>, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        guard keepsHistory, !retention.keepsEverything, !paths.isEmpty else { return }
        let bound: Pathbase.Timestamp
        switch retentionBound {
        case .unbounded: bound = Pathbase.Timestamp(time: .max, counter: .max, replica: .max)
        case .nothing: return
        case .through(let limit): bound = limit
        }
        let now = Date()
        let horizon = retention.age.map { Pathbase.Timestamp(latestAt: now.addingTimeInterval(-$0)) }
        try trim(paths, bound: bound, horizon: horizon, handle: handle)
        if let age = retention.age, let horizon, now.timeIntervalSince(retentionSweptAt ?? .distantPast) >= min(60, age / 10) {
            try sweepAged(through: min(horizon, bound), bound: bound, handle: handle)
            retentionSweptAt = now
        }
    }

    /// Runs the statement of ``retentionSQL(versions:aged:)`` for each of `paths`.
    private func trim(_ paths: some Sequence<Pathbase.Path>, bound: Pathbase.Timestamp, horizon: Pathbase.Timestamp?, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let delete = try retentionDelete(handle: handle)
        for path in paths {
            delete.bindPath(path)
            delete.bind(bound, at: 4)
            if let versions = retention.versions, versions > 1 { delete.bind(versions - 2, at: 7) }
            if let horizon { delete.bind(horizon, at: 8) }
            try execute(delete)
        }
    }

    /// Trims the paths written since the last sweep up to `limit` (the age's horizon, or the
    /// replica's bound if earlier), whether or not they were written again: those records
    /// aged out. The runs are found by the index on their first timestamp, from where the
    /// last sweep stopped (stored in the file, so a file is read once however often it is
    /// opened); at most once a minute, or every tenth of the age if shorter. Records written
    /// before format 7 (in `record_times`) are trimmed only when their path is written.
    private func sweepAged(through limit: Pathbase.Timestamp, bound: Pathbase.Timestamp, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let swept = try readMetaTimestamp("retentionSweptThrough", handle) ?? Pathbase.Timestamp(time: .min)
        guard swept < limit else { return }
        let select = try Statement(
            sql: "SELECT time, replica, records FROM record_runs WHERE (time, counter, replica) > (?1, ?2, ?3) AND (time, counter, replica) <= (?4, ?5, ?6)",
            connection: handle)
        defer { select.finalize() }
        select.bind(swept, at: 1)
        select.bind(limit, at: 4)
        var paths: Set<Pathbase.Path> = []
        while try select.hasRow() {
            let first = Pathbase.Timestamp(time: select.int64(at: 0), counter: 0, replica: UInt32(truncatingIfNeeded: select.int64(at: 1)))
            guard let records = select.withBytes(at: 2, { RecordRun.decode($0, firstTime: first.time, firstReplica: first.replica) }) else {
                throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed run of records")
            }
            for record in records { paths.insert(record.path) }
        }
        try trim(paths, bound: bound, horizon: limit, handle: handle)
        try writeMetaTimestamp("retentionSweptThrough", limit, handle)
    }

    /// The prepared statement of ``retentionSQL(versions:aged:)`` for ``retention``.
    private func retentionDelete(handle: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let retentionStatement { return retentionStatement }
        let statement = try Statement(sql: Self.retentionSQL(versions: retention.versions, aged: retention.age != nil), connection: handle)
        retentionStatement = statement
        return statement
    }

    /// The statement removing one path's superseded records that the policy does not keep:
    /// ?1 model, ?2 property, ?3 instance, ?4–?6 the newest removable timestamp, ?7 how many
    /// of the newest superseded records stay besides the current one, minus one, ?8–?10 the
    /// horizon of the age. With both limits, a record goes only when neither keeps it.
    static func retentionSQL(versions: Int?, aged: Bool) -> String {
        let removable = "r.model = ?1 AND r.property = ?2 AND r.instance = ?3 AND (r.time, r.counter, r.replica) <= (?4, ?5, ?6)"
        var keptBy: [String] = []
        if let versions {
            // Among the newest `versions - 1` superseded records (the current one is newer still).
            keptBy.append(
                versions == 1
                    ? "0"
                    : """
                    (r.time, r.counter, r.replica) >= (
                      SELECT time, counter, replica FROM superseded_records
                      WHERE model = ?1 AND property = ?2 AND instance = ?3
                      ORDER BY time DESC, counter DESC, replica DESC LIMIT 1 OFFSET ?7)
                    """)
        }
        if aged {
            // After the horizon, or the newest record at or before it (the state then): no
            // newer record of the path, superseded or current, is at or before the horizon.
            keptBy.append(
                """
                NOT EXISTS (
                  SELECT 1 FROM superseded_records AS newer
                  WHERE newer.model = ?1 AND newer.property = ?2 AND newer.instance = ?3
                    AND (newer.time, newer.counter, newer.replica) > (r.time, r.counter, r.replica)
                    AND (newer.time, newer.counter, newer.replica) <= (?8, ?9, ?10))
                AND NOT EXISTS (
                  SELECT 1 FROM current_values AS c
                  WHERE c.model = ?1 AND c.property = ?2 AND c.instance = ?3
                    AND (c.time, c.counter, c.replica) <= (?8, ?9, ?10))
                """)
        }
        let kept = keptBy.map { "(\($0))" }.joined(separator: " OR ")
        return "DELETE FROM superseded_records AS r WHERE \(removable) AND NOT (\(kept))"
    }
}
