import GRDBSQLite
import Pathbase

/// Every SQL statement of the hot paths, compiled once when the database opens.
///
/// Timestamps are three columns (time, counter, replica) compared as row values, in the
/// order ``Pathbase/Timestamp`` compares them. Range conditions on `time` alone come
/// first so that SQLite narrows the index range before comparing the full row value.
struct Statements {

    /// Starts a transaction that takes the write lock only at its first write: `read { }`.
    let beginDeferred: Statement
    let begin: Statement
    let commit: Statement
    let rollback: Statement
    let savepoint: Statement
    let rollbackToSavepoint: Statement
    let releaseSavepoint: Statement
    /// Reads the file's first page: the running `read { }` takes its snapshot of the file,
    /// which `BEGIN DEFERRED` leaves to the first statement that reads.
    let takeSnapshot: Statement

    /// (?1 model, ?2 instance) → (body): what `get` reads.
    let selectBody: Statement

    /// (?1 model, ?2 property, ?3 instance, ?4 time, ?5 counter, ?6 replica) → the newest
    /// record at or before the timestamp, current or superseded: (type, value, time,
    /// counter, replica).
    let selectRecordAt: Statement

    /// (?1 model) → the current statuses: (instance, type, value, time, counter, replica).
    let selectCurrentStatuses: Statement

    /// (?1 model, ?2 time, ?3 counter, ?4 replica) → the status records that may be an
    /// instance's status at the timestamp, each instance's rows together, instances in no
    /// particular order: (instance, type, value, time, counter, replica).
    ///
    /// A current status at or before the timestamp is the answer (it is newer than the
    /// path's superseded ones); only for a current status written later are the superseded
    /// status records up to the timestamp sought. It starts from the current statuses
    /// (every instance that ever had one): a range of the model's history read every
    /// property's.
    let selectStatusRecordsAt: Statement

    /// (?1 time, ?2 counter, ?3 replica, ?4 limit) → records after the timestamp, oldest
    /// first: (model, property, instance, time, counter, replica, type, value). Walks
    /// `record_times` and finds each record's value in its instance's body or, failing
    /// that, in `superseded_records`.
    let selectRecordsAfter: Statement

    /// The same over current values, for databases without history.
    let selectCurrentAfter: Statement

    /// (?1 time) → the runs of records starting at or after it, in order: (time, counter,
    /// replica, records).
    let selectRunsFrom: Statement

    /// (?1 model, ?2 instance, ?3 property, ?4 time, ?5 counter, ?6 replica) → a superseded
    /// record's (type, value).
    let selectSupersededRecord: Statement

    /// (?1 model, ?2 property, ?3 instance) → every record of the path, oldest first
    /// (its superseded records, then its current one): (type, value, time, counter, replica).
    let selectRecordsAtPath: Statement

    /// () → the newest timestamp of `record_times`: (time, counter, replica).
    let selectNewestCurrent: Statement

    /// (?1 model, ?2 property, ?3 instance): forgets the elements of a path's list.
    let deleteListMembers: Statement

    /// (?1 model, ?2 property, ?3 instance, ?4 member): records one element of a path's list.
    let insertListMember: Statement

    /// (?1 model, ?2 property, ?3 target) → the instances whose current list contains the
    /// target, ascending: (instance).
    let selectListReferrers: Statement

    init(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        func make(_ sql: String) throws(SQLiteDatabaseError) -> Statement {
            try Statement(sql: sql, connection: connection)
        }
        begin = try make("BEGIN IMMEDIATE")
        beginDeferred = try make("BEGIN DEFERRED")
        commit = try make("COMMIT")
        rollback = try make("ROLLBACK")
        savepoint = try make("SAVEPOINT pathbase_batch")
        rollbackToSavepoint = try make("ROLLBACK TO pathbase_batch")
        releaseSavepoint = try make("RELEASE pathbase_batch")
        takeSnapshot = try make("SELECT 1 FROM pathbase_meta LIMIT 1")
        selectBody = try make("SELECT body FROM instance_values WHERE model = ?1 AND instance = ?2")
        // Each side is a range of its primary key: SQLite merges them (no sort).
        selectRecordAt = try make(
            """
            SELECT type, value, time, counter, replica FROM current_values
            WHERE model = ?1 AND property = ?2 AND instance = ?3
                AND time <= ?4 AND (time, counter, replica) <= (?4, ?5, ?6)
            UNION ALL
            SELECT type, value, time, counter, replica FROM superseded_records
            WHERE model = ?1 AND property = ?2 AND instance = ?3
                AND time <= ?4 AND (time, counter, replica) <= (?4, ?5, ?6)
            ORDER BY time DESC, counter DESC, replica DESC
            LIMIT 1
            """)
        // The status is its body's first entry (property 0).
        selectCurrentStatuses = try make(
            """
            SELECT instance, pathbase_type(body, 0), pathbase_value(body, 0),
                pathbase_time(body, 0), pathbase_counter(body, 0), pathbase_replica(body, 0)
            FROM instance_values WHERE model = ?1 AND pathbase_type(body, 0) IS NOT NULL
            """)
        // CROSS JOIN keeps the statuses outside: the planner put the model's records there.
        let status = "pathbase_type(s.body, 0) IS NOT NULL"
        let statusTime = "(pathbase_time(s.body, 0), pathbase_counter(s.body, 0), pathbase_replica(s.body, 0))"
        selectStatusRecordsAt = try make(
            """
            SELECT s.instance, pathbase_type(s.body, 0), pathbase_value(s.body, 0),
                pathbase_time(s.body, 0), pathbase_counter(s.body, 0), pathbase_replica(s.body, 0)
            FROM instance_values s
            WHERE s.model = ?1 AND \(status) AND \(statusTime) <= (?2, ?3, ?4)
            UNION ALL
            SELECT r.instance, r.type, r.value, r.time, r.counter, r.replica
            FROM instance_values s CROSS JOIN superseded_records r
            WHERE s.model = ?1 AND \(status) AND \(statusTime) > (?2, ?3, ?4)
                AND r.model = ?1 AND r.instance = s.instance AND r.property = 0
                AND r.time <= ?2 AND (r.time, r.counter, r.replica) <= (?2, ?3, ?4)
            """)
        // The superseded record is looked up only when the record is not current: when its
        // instance's body holds another record of the path.
        let isCurrent = """
            pathbase_time(i.body, t.property) = t.time AND pathbase_counter(i.body, t.property) = t.counter
                AND pathbase_replica(i.body, t.property) = t.replica
            """
        selectRecordsAfter = try make(
            """
            SELECT t.model, t.property, t.instance, t.time, t.counter, t.replica,
                CASE WHEN i.model IS NULL THEN r.type ELSE pathbase_type(i.body, t.property) END,
                CASE WHEN i.model IS NULL THEN r.value ELSE pathbase_value(i.body, t.property) END
            FROM record_times t
            LEFT JOIN instance_values i ON i.model = t.model AND i.instance = t.instance AND \(isCurrent)
            LEFT JOIN superseded_records r
                ON i.model IS NULL AND r.model = t.model AND r.instance = t.instance AND r.property = t.property
                AND r.time = t.time AND r.counter = t.counter AND r.replica = t.replica
            WHERE t.time >= ?1 AND (t.time, t.counter, t.replica) > (?1, ?2, ?3)
                AND (i.model IS NOT NULL OR r.type IS NOT NULL)
            ORDER BY t.time, t.counter, t.replica, t.model, t.instance, t.property
            LIMIT ?4
            """)
        // Without history, `record_times` holds the current records' times.
        selectCurrentAfter = try make(
            """
            SELECT t.model, t.property, t.instance, t.time, t.counter, t.replica,
                pathbase_type(i.body, t.property), pathbase_value(i.body, t.property)
            FROM record_times t JOIN instance_values i ON i.model = t.model AND i.instance = t.instance
            WHERE t.time >= ?1 AND (t.time, t.counter, t.replica) > (?1, ?2, ?3)
                AND pathbase_type(i.body, t.property) IS NOT NULL
            ORDER BY t.time, t.counter, t.replica, t.model, t.instance, t.property
            LIMIT ?4
            """)
        selectRunsFrom = try make(
            """
            SELECT time, counter, replica, records FROM record_runs
            WHERE time >= ?1 AND end_time >= ?2 ORDER BY time, counter, replica
            """)
        selectSupersededRecord = try make(
            """
            SELECT type, value FROM superseded_records
            WHERE model = ?1 AND instance = ?2 AND property = ?3 AND time = ?4 AND counter = ?5 AND replica = ?6
            """)
        selectNewestCurrent = try make(
            """
            SELECT time, counter, replica FROM record_times
            ORDER BY time DESC, counter DESC, replica DESC LIMIT 1
            """)
        deleteListMembers = try make("DELETE FROM list_members WHERE model = ?1 AND property = ?2 AND instance = ?3")
        insertListMember = try make("INSERT OR IGNORE INTO list_members(model, property, instance, member) VALUES (?1, ?2, ?3, ?4)")
        // A list replaced by a value of another type leaves its rows: check the current type.
        selectListReferrers = try make(
            """
            SELECT m.instance FROM list_members m CROSS JOIN instance_values i
            ON i.model = m.model AND i.instance = m.instance
            WHERE m.model = ?1 AND m.property = ?2 AND m.member = ?3
                AND pathbase_type(i.body, m.property) = \(ValueTag.integerArray.rawValue)
            ORDER BY m.instance
            """)
        selectRecordsAtPath = try make(
            """
            SELECT type, value, time, counter, replica FROM superseded_records
            WHERE model = ?1 AND property = ?2 AND instance = ?3
            UNION ALL
            SELECT type, value, time, counter, replica FROM current_values
            WHERE model = ?1 AND property = ?2 AND instance = ?3
            ORDER BY time, counter, replica
            """)
    }

    func finalize() {
        for statement in [
            begin, commit, rollback, savepoint, rollbackToSavepoint, releaseSavepoint,
            beginDeferred, takeSnapshot, selectBody, selectRecordAt, selectCurrentStatuses,
            selectStatusRecordsAt, selectRecordsAfter, selectCurrentAfter, selectRunsFrom,
            selectSupersededRecord, selectRecordsAtPath,
            selectNewestCurrent, deleteListMembers, insertListMember, selectListReferrers
        ] {
            statement.finalize()
        }
    }
}

extension Statement {
    /// Binds a path as ?1 model, ?2 property, ?3 instance.
    @inline(__always)
    func bindPath(_ path: Pathbase.Path) {
        bind(path.model, at: 1)
        bind(path.property, at: 2)
        bind(path.instance, at: 3)
    }

    /// Binds a timestamp as three parameters from `index` on.
    @inline(__always)
    func bind(_ timestamp: Pathbase.Timestamp, at index: Int32) {
        bind(timestamp.time, at: index)
        bind(Int64(timestamp.counter), at: index + 1)
        bind(Int64(timestamp.replica), at: index + 2)
    }

    /// Reads a timestamp from three columns from `column` on.
    @inline(__always)
    func timestamp(at column: Int32) -> Pathbase.Timestamp {
        Pathbase.Timestamp(
            time: int64(at: column),
            counter: UInt32(truncatingIfNeeded: int64(at: column + 1)),
            replica: UInt32(truncatingIfNeeded: int64(at: column + 2))
        )
    }
}
