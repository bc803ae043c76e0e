import GRDBSQLite
import Pathbase

/// Keeps a database's clock ahead of every record the file holds, also those that other
/// connections (other processes) committed since it opened: each write transaction moves
/// the clock past the file's newest timestamp right after it took the file's write lock.
///
/// Every open of a file stamps with the file's one replica id
/// (``SQLiteDatabase/establishReplicaIdentity(readOnly:)``), so two processes writing it at
/// once could otherwise hand out equal timestamps. Stamped under the write lock and after
/// the newest committed record, local writes are totally ordered in commit order: no two
/// are equal, and a ``Pathbase/Replica``'s outbox watermark never passes a write that
/// another process commits later.
///
/// `PRAGMA data_version` tells whether another connection committed since the last look,
/// so a file written by one connection only pays one pragma step per write transaction.
/// Used only while holding the database's lock.
final class FileClock: @unchecked Sendable {
    // @unchecked: used only while holding the database's lock (see above).

    private var dataVersion = DataVersion()
    private var lastSeenVersion: Int64?

    /// Moves `clock` past the newest record of the file if another connection committed
    /// since the last call. Call right after `BEGIN IMMEDIATE`.
    func catchUp(_ clock: HybridLogicalClock, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        guard let version = try dataVersion.read(handle: handle), version != lastSeenVersion else { return }
        lastSeenVersion = version
        if let newest = try Self.newestTimestamp(handle) {
            clock.receive(newest)
        }
        try Self.followIdentity(clock, handle: handle)
    }

    /// Takes the identity another connection stored when it took a new one (see
    /// `SQLiteDatabase.takeNewReplicaIdentity()`), so that every open of the file keeps
    /// stamping with the file's one id.
    static func followIdentity(_ clock: HybridLogicalClock, handle: OpaquePointer) throws(SQLiteDatabaseError) {
        guard clock.followsDatabaseIdentity else { return }
        let statement = try Statement(sql: "SELECT key, value FROM pathbase_meta WHERE key IN ('replica', 'earlierReplicas')", connection: handle)
        defer { statement.finalize() }
        var id: UInt32?
        var earlier: [UInt32] = []
        while try statement.hasRow() {
            if statement.string(at: 0) == "replica" {
                id = UInt32(statement.string(at: 1))
            } else {
                earlier = statement.string(at: 1).split(separator: ",").compactMap { UInt32($0) }
            }
        }
        if let id, id != clock.replica { clock.takeNewIdentity(id, earlier: earlier) }
    }

    /// Finalizes the statement before the connection closes.
    func finalize() {
        dataVersion.finalize()
        lastSeenVersion = nil
    }

    /// The newest record's timestamp: the last of `record_times`, or of the runs that start
    /// within a run's span of the last one (as the opening reads it).
    static func newestTimestamp(_ handle: OpaquePointer) throws(SQLiteDatabaseError) -> Timestamp? {
        var newest: Timestamp?
        let times = try Statement(sql: "SELECT time, counter, replica FROM record_times ORDER BY time DESC, counter DESC, replica DESC LIMIT 1", connection: handle)
        defer { times.finalize() }
        if try times.hasRow() {
            newest = Timestamp(time: times.int64(at: 0), counter: UInt32(truncatingIfNeeded: times.int64(at: 1)), replica: UInt32(truncatingIfNeeded: times.int64(at: 2)))
        }
        let runs = try Statement(sql: "SELECT time, replica, records FROM record_runs WHERE time >= (SELECT max(time) FROM record_runs) - ?1", connection: handle)
        defer { runs.finalize() }
        runs.bind(RecordRun.maximumSpan, at: 1)
        while try runs.hasRow() {
            let records = runs.withBytes(at: 2) {
                RecordRun.decode($0, firstTime: runs.int64(at: 0), firstReplica: UInt32(truncatingIfNeeded: runs.int64(at: 1)))
            }
            for record in records ?? [] where newest.map({ record.timestamp > $0 }) ?? true {
                newest = record.timestamp
            }
        }
        return newest
    }
}
