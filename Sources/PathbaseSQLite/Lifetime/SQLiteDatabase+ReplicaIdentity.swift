import Foundation
import GRDBSQLite
import Pathbase

/// One replica identity per file: the id every open of the file stamps its writes with, in
/// every process — and never the id of another file.
///
/// The file keeps it in `pathbase_meta` (key `replica`), stored the first time it is opened
/// for writing, with the ids it had been written with before (key `earlierReplicas`: an
/// older file's writes under a new random id per open, adopted once, and the ids it retired).
/// A clock made without an id (the default) adopts both
/// (``Pathbase/HybridLogicalClock/adoptIdentity(_:earlier:)``), so a ``Pathbase/Replica``
/// made on any later open pushes every local write, whichever open or process made it. An
/// explicit clock keeps its own id.
///
/// **Copies, moves and restores.** The bytes of a file say nothing of where they are, so the
/// identity also records the file it was made for, outside the bytes: the device and file
/// number (inode) of the database file (key `replicaFile`). A writable open that finds
/// another file there — a copy (`cp`, a document duplicated, a second device's migration),
/// a move to another volume, a backup restored as a new file — takes a new random id for its
/// later writes before it writes anything, and keeps the old one among its earlier ids: its
/// records stay its own and are pushed, its merge states keep the old id's contributions and
/// add new ones under the new id, so a copy never issues a dot or a counter contribution
/// its original issues. A rename on one volume keeps the file number and the identity. A
/// backup written over the live file in place (same file number), or restored as a new file
/// that the file system gave the deleted one's number, is not seen here: the sync server
/// sees it at the next push (see ``Pathbase/Replica``), and the README says so.
extension SQLiteDatabase {

    /// The `pathbase_meta` key of the file's replica id.
    static let replicaIdentityKey = "replica"

    /// The `pathbase_meta` key of the ids adopted with it (comma-separated).
    static let earlierReplicasKey = "earlierReplicas"

    /// The `pathbase_meta` key of the file the identity was made for (`device:file number`).
    static let replicaFileKey = "replicaFile"

    /// The file's stored replica identity, or `nil` when it has none yet.
    public func storedReplicaIdentity() throws(SQLiteDatabaseError) -> (id: UInt32, earlier: [UInt32])? {
        try storedIdentity().map { ($0.id, $0.earlier) }
    }

    /// The stored identity with the file it was made for (`nil` for a file that identified
    /// itself before files were recorded).
    private func storedIdentity() throws(SQLiteDatabaseError) -> (id: UInt32, earlier: [UInt32], file: String?)? {
        let rows = try query(
            "SELECT key, value FROM pathbase_meta WHERE key IN ('\(Self.replicaIdentityKey)', '\(Self.earlierReplicasKey)', '\(Self.replicaFileKey)')"
        ) { _ in
        } row: { statement in
            (statement.string(at: 0), statement.string(at: 1))
        }
        guard let id = rows.first(where: { $0.0 == Self.replicaIdentityKey }).flatMap({ UInt32($0.1) }) else { return nil }
        let earlier =
            rows.first { $0.0 == Self.earlierReplicasKey }?.1
            .split(separator: ",").compactMap { UInt32($0) } ?? []
        let file = rows.first { $0.0 == Self.replicaFileKey }?.1
        return (id, earlier, file?.isEmpty == false ? file : nil)
    }

    /// The device and file number of the database file, as `device:file number`; `nil` when
    /// the file system does not say.
    private var fileIdentity: String? {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
            let number = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        return "\(device):\(number)"
    }

    /// Reads the file's identity and lets the clock adopt it; on a file opened for writing
    /// that has none, stores one first: the replica id of an earlier ``Pathbase/Replica``,
    /// or the clock's id, with the ids the file's records were written with. A file opened
    /// for writing whose identity was made for another file (a copy, a restored backup)
    /// takes a new id first. Called once, when the database opens.
    func establishReplicaIdentity(readOnly: Bool) throws(SQLiteDatabaseError) {
        guard path != nil else { return }
        if let stored = try storedIdentity() {
            let here = readOnly ? nil : fileIdentity
            if let here, stored.file != here {
                try storeIdentity(whereFileIsNot: here)
            }
            if let identity = try storedReplicaIdentity() {
                clock.adoptIdentity(identity.id, earlier: identity.earlier)
            }
            return
        }
        guard !readOnly else { return }
        // A file that was a replica before this identity existed keeps that replica's id
        // and writers; any other adopts every id its own writes were made with. Records
        // that came from a pull or an import are not its own: a file that was a replica
        // lists its writers, and an imported file's records are adopted only when it never
        // synced (the ids of an import into a synced file are noted as imported instead).
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
                sql: """
                    INSERT OR IGNORE INTO pathbase_meta(key, value)
                    VALUES ('\(Self.replicaIdentityKey)', ?1), ('\(Self.earlierReplicasKey)', ?2), ('\(Self.replicaFileKey)', ?3)
                    """,
                connection: try writeHandle()
            )
            defer { statement.finalize() }
            statement.bind(String(id), at: 1)
            statement.bind(earlier.filter { $0 != id }.map(String.init).joined(separator: ","), at: 2)
            statement.bind(fileIdentity ?? "", at: 3)
            try execute(statement)
        }
        if let stored = try storedReplicaIdentity() {
            clock.adoptIdentity(stored.id, earlier: stored.earlier)
        }
    }

    /// Under the file's write lock, and only if the stored identity is still for another
    /// file than `here` (another process may have just done this): a new random id, the
    /// old one retired among the earlier ids, and `here` recorded. An identity made before
    /// files were recorded keeps its id and only records `here`.
    private func storeIdentity(whereFileIsNot here: String) throws(SQLiteDatabaseError) {
        try inIdentityTransaction { () throws(SQLiteDatabaseError) in
            guard let stored = try storedIdentity(), stored.file != here else { return }
            var values = [(Self.replicaFileKey, here)]
            if stored.file != nil {
                let retired = stored.earlier + [stored.id]
                values.append((Self.replicaIdentityKey, String(Self.newReplicaId(avoiding: Set(retired)))))
                values.append((Self.earlierReplicasKey, retired.map(String.init).joined(separator: ",")))
            }
            try storeMeta(values)
        }
    }

    /// Takes a new random replica id for the file's later writes and retires the current
    /// one among its earlier ids, in the file and in the clock: what a ``Pathbase/Replica``
    /// does when the server answers that another file pushes under its id. Other
    /// connections to the file (other processes) take it at their next write.
    package func takeNewReplicaIdentity() throws -> UInt32 {
        let (id, retired) = try inIdentityTransaction { () throws(SQLiteDatabaseError) in
            let stored = try storedIdentity()
            let retired = (stored?.earlier ?? clock.earlierReplicas) + [stored?.id ?? clock.replica]
            let id = Self.newReplicaId(avoiding: Set(retired))
            try storeMeta([
                (Self.replicaIdentityKey, String(id)), (Self.earlierReplicasKey, retired.map(String.init).joined(separator: ",")),
                (Self.replicaFileKey, fileIdentity ?? stored?.file ?? "")
            ])
            return (id, retired)
        }
        clock.takeNewIdentity(id, earlier: retired)
        return id
    }

    /// Runs `body` in a write transaction of its own (the file's write lock taken first, so
    /// that two processes changing the identity at once do it one after the other).
    private func inIdentityTransaction<Result>(_ body: () throws(SQLiteDatabaseError) -> Result) throws(SQLiteDatabaseError) -> Result {
        try locked { () throws(SQLiteDatabaseError) -> Result in
            let handle = try writeHandle()
            try exec("BEGIN IMMEDIATE", on: handle)
            do throws(SQLiteDatabaseError) {
                let result = try body()
                try exec("COMMIT", on: handle)
                return result
            } catch {
                try? exec("ROLLBACK", on: handle)
                throw error
            }
        }
    }

    /// Stores `pathbase_meta` values, replacing those of the same keys.
    private func storeMeta(_ values: [(String, String)]) throws(SQLiteDatabaseError) {
        let statement = try Statement(sql: "INSERT OR REPLACE INTO pathbase_meta(key, value) VALUES (?1, ?2)", connection: try writeHandle())
        defer { statement.finalize() }
        for (key, value) in values {
            statement.bind(key, at: 1)
            statement.bind(value, at: 2)
            try execute(statement)
        }
    }

    /// A random replica id that is none of `avoiding` (and not 0).
    static func newReplicaId(avoiding: Set<UInt32>) -> UInt32 {
        var id = UInt32.random(in: 1 ... .max)
        while avoiding.contains(id) { id = UInt32.random(in: 1 ... .max) }
        return id
    }

    private func exec(_ sql: String, on handle: OpaquePointer) throws(SQLiteDatabaseError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }
}

extension SQLiteDatabase: ReplicaIdentityKeeping {}
