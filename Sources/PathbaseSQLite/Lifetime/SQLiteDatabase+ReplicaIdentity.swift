import Foundation
import GRDBSQLite
import Pathbase

/// One replica identity per file: the id every open of the file stamps its writes with, in
/// every process.
///
/// The file keeps it in `pathbase_meta` (key `replica`), stored the first time it is opened
/// for writing, with the ids it had been written with before (key `earlierReplicas`:
/// an older file's writes under a new random id per open, adopted once). A clock made
/// without an id (the default) adopts both (``Pathbase/HybridLogicalClock/adoptIdentity(_:earlier:)``),
/// so a ``Pathbase/Replica`` made on any later open pushes every local write, whichever
/// open or process made it. A file that was a replica before keeps its replica id and its
/// list of writers. An explicit clock keeps its own id.
extension SQLiteDatabase {

    /// The `pathbase_meta` key of the file's replica id.
    static let replicaIdentityKey = "replica"

    /// The `pathbase_meta` key of the ids adopted with it (comma-separated).
    static let earlierReplicasKey = "earlierReplicas"

    /// The file's stored replica identity, or `nil` when it has none yet.
    public func storedReplicaIdentity() throws(SQLiteDatabaseError) -> (id: UInt32, earlier: [UInt32])? {
        let rows = try query("SELECT key, value FROM pathbase_meta WHERE key IN ('\(Self.replicaIdentityKey)', '\(Self.earlierReplicasKey)')") { _ in
        } row: { statement in
            (statement.string(at: 0), statement.string(at: 1))
        }
        guard let id = rows.first(where: { $0.0 == Self.replicaIdentityKey }).flatMap({ UInt32($0.1) }) else { return nil }
        let earlier =
            rows.first { $0.0 == Self.earlierReplicasKey }?.1
            .split(separator: ",").compactMap { UInt32($0) } ?? []
        return (id, earlier)
    }

    /// Reads the file's identity and lets the clock adopt it; on a file opened for writing
    /// that has none, stores one first: the replica id of an earlier ``Pathbase/Replica``,
    /// or the clock's id, with the ids the file's records were written with. Called once,
    /// when the database opens.
    func establishReplicaIdentity(readOnly: Bool) throws(SQLiteDatabaseError) {
        guard path != nil else { return }
        if let stored = try storedReplicaIdentity() {
            clock.adoptIdentity(stored.id, earlier: stored.earlier)
            return
        }
        guard !readOnly else { return }
        // A file that was a replica before this identity existed keeps that replica's id
        // and writers; any other adopts every id its records were written with.
        let earlierReplica: UInt32? = get(ReplicaState.id)
        let earlierWriters: [UInt32]? = get(ReplicaState.writers)
        let id = earlierReplica ?? clock.replica
        let earlier =
            earlierWriters
            ?? Set(
                records(after: nil).lazy
                    .filter { $0.path.model != Replica.stateModel }
                    .map(\.timestamp.replica)
            ).sorted()
        try locked { () throws(SQLiteDatabaseError) in
            // Another process opening the file now may store first: its identity wins.
            let statement = try Statement(
                sql: "INSERT OR IGNORE INTO pathbase_meta(key, value) VALUES ('\(Self.replicaIdentityKey)', ?1), ('\(Self.earlierReplicasKey)', ?2)",
                connection: try writeHandle()
            )
            defer { statement.finalize() }
            statement.bind(String(id), at: 1)
            statement.bind(earlier.filter { $0 != id }.map(String.init).joined(separator: ","), at: 2)
            try execute(statement)
        }
        if let stored = try storedReplicaIdentity() {
            clock.adoptIdentity(stored.id, earlier: stored.earlier)
        }
    }
}
