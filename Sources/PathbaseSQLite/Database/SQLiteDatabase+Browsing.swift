import GRDBSQLite
import Pathbase

/// What Pathbase Studio reads beyond the inspection API: a page of a model's instances with
/// their statuses as they were at a moment, the models stored, and the time span of the
/// file's records.
/// Package API: its SQL is compiled per call, fine for a page in a browser.
extension SQLiteDatabase {

    /// The instances of `model` after `after` (ascending id), at most `limit`, with the
    /// status each had at `timestamp` (now when `nil`), only those with `status` when given.
    /// An instance created after `timestamp` is not listed.
    package func instanceStatuses(
        model: ModelKey, at timestamp: Timestamp?, status: InstanceStatus?, after: InstanceKey?, limit: Int
    ) throws(SQLiteDatabaseError) -> [(instance: InstanceKey, status: InstanceStatus)] {
        let statusTag = ValueTag.status.rawValue
        let statusCondition = status.map { "AND value = \($0.rawValue)" } ?? ""
        let sql: String
        if timestamp == nil {
            sql = """
                SELECT instance, value FROM current_values
                WHERE model = ?1 AND property = 0 AND type = \(statusTag) AND instance > ?2 \(statusCondition)
                ORDER BY instance LIMIT ?3
                """
        } else {
            // The newest status record at or before the moment, per instance.
            sql = """
                SELECT instance, value FROM (
                    SELECT instance, value, row_number() OVER (PARTITION BY instance ORDER BY time DESC, counter DESC, replica DESC) AS newest
                    FROM (SELECT instance, value, type, time, counter, replica FROM current_values WHERE model = ?1 AND property = 0
                          UNION ALL
                          SELECT instance, value, type, time, counter, replica FROM superseded_records WHERE model = ?1 AND property = 0)
                    WHERE type = \(statusTag) AND instance > ?2 AND (time, counter, replica) <= (?4, ?5, ?6)
                ) WHERE newest = 1 \(statusCondition)
                ORDER BY instance LIMIT ?3
                """
        }
        return try query(sql) { statement in
            statement.bind(model, at: 1)
            statement.bind(after.map(Int64.init) ?? Int64.min, at: 2)
            statement.bind(max(0, limit), at: 3)
            if let timestamp {
                statement.bind(timestamp.time, at: 4)
                statement.bind(Int64(timestamp.counter), at: 5)
                statement.bind(Int64(timestamp.replica), at: 6)
            }
        } row: { statement in
            (
                InstanceKey(truncatingIfNeeded: statement.int64(at: 0)),
                InstanceStatus(rawValue: UInt8(truncatingIfNeeded: statement.int64(at: 1))) ?? .deleted
            )
        }
    }

    /// Every model that has at least one instance row, ascending: a loose index scan of
    /// `instance_values`' primary key, one seek per model however many instances each has.
    package func storedModels() throws(SQLiteDatabaseError) -> [ModelKey] {
        try query(
            """
            WITH RECURSIVE models(model) AS (
                SELECT min(model) FROM instance_values
                UNION ALL
                SELECT (SELECT min(model) FROM instance_values WHERE model > models.model) FROM models WHERE models.model IS NOT NULL
            )
            SELECT model FROM models WHERE model IS NOT NULL
            """
        ) { _ in
        } row: { statement in
            ModelKey(truncatingIfNeeded: statement.int64(at: 0))
        }
    }

    /// The storage format of the files this build opens (a read-only open refuses any other).
    package static var storageFormat: Int { Schema.formatVersion }

    /// The wall-clock times (microseconds since 1970) of the oldest and the newest record
    /// the file holds, or `nil` when it holds none.
    ///
    /// Every page of Studio shows it (the time slider), so it reads no record: every record's
    /// time is in `record_times` or in a run of `record_runs`, each found through an index —
    /// the first of both, the last of `record_times` and the largest end of the runs that
    /// start within ``RecordRun/maximumSpan`` of the last run (as opening finds the newest
    /// timestamp). A few index seeks, however many records.
    package func recordedTimeSpan() throws(SQLiteDatabaseError) -> (first: Int64, last: Int64)? {
        try query(
            """
            SELECT min(first), max(last) FROM (
                SELECT (SELECT min(time) FROM record_times) AS first, (SELECT max(time) FROM record_times) AS last
                UNION ALL
                SELECT (SELECT min(time) FROM record_runs),
                       (SELECT max(end_time) FROM record_runs WHERE time >= (SELECT max(time) FROM record_runs) - ?1)
            )
            """
        ) { statement in
            statement.bind(RecordRun.maximumSpan, at: 1)
        } row: { statement in
            statement.isNull(at: 0) ? nil : (statement.int64(at: 0), statement.int64(at: 1))
        }.first ?? nil
    }
}
