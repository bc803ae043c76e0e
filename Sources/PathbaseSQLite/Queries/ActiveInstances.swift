import GRDBSQLite
import Pathbase

/// The ids of the active instances of the models queried so far, kept in memory so that a
/// query starting from a few rows of the value index checks their status without a b-tree
/// descent each (a random page of the file per candidate: it cost more than the rest of a
/// selective query).
///
/// A model's set is read with one index range scan on its first query, then kept current
/// by this connection's writes of statuses. It is dropped when a transaction of this
/// connection rolls back, and when another connection (another process) committed to the
/// file, which the pager's data version tells (`SQLITE_FCNTL_DATA_VERSION`, as
/// `PRAGMA data_version` without running a statement); the next query reads it again.
/// About 16 bytes per active instance of a queried model. Used while holding the
/// database's lock.
final class ActiveInstances: RowMirror {

    private var sets: [ModelKey: Set<InstanceKey>] = [:]
    private var dataVersion: UInt32?
    private var scanStatement: Statement?

    /// The active instances of `model`, read if not known or possibly stale.
    ///
    /// Call it while a statement of the query has stepped at least once: the data version
    /// is that of the read transaction, so the set then matches what the query reads.
    func of(_ model: ModelKey, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Set<InstanceKey> {
        try dropIfChangedElsewhere(connection: connection)
        if let set = sets[model] { return set }
        if scanStatement == nil {
            scanStatement = try Statement(
                sql: "SELECT instance FROM instance_values WHERE model = ?1 AND \(ActiveStatus.sql(body: "body"))",
                connection: connection
            )
        }
        guard let scan = scanStatement else { return [] }
        defer { scan.reset() }
        scan.bind(model, at: 1)
        var set = Set<InstanceKey>()
        while try scan.hasRow() {
            set.insert(InstanceKey(truncatingIfNeeded: scan.int64(at: 0)))
        }
        sets[model] = set
        return set
    }

    /// A status became current through this connection.
    func statusWritten(_ path: Path, tag: Int64, value: StoredValue) {
        guard sets[path.model] != nil else { return }
        let integer: Int64? = if case .integer(let raw) = value { raw } else { nil }
        if ActiveStatus.holds(tag: tag, integer: integer) {
            sets[path.model]?.insert(path.instance)
        } else {
            sets[path.model]?.remove(path.instance)
        }
    }

    /// Forgets every set: after a rollback, what was added may not be in the file.
    func rowsRolledBack() {
        sets.removeAll()
    }

    func finalize() {
        scanStatement?.finalize()
        scanStatement = nil
        sets.removeAll()
    }

    /// Drops the sets when another connection committed since they were read.
    private func dropIfChangedElsewhere(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        var version: UInt32 = 0
        let code = sqlite3_file_control(connection, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        guard code == SQLITE_OK else {
            throw .sqlite(code: code, message: "cannot read the data version")
        }
        if version != dataVersion {
            sets.removeAll()
            dataVersion = version
        }
    }
}
