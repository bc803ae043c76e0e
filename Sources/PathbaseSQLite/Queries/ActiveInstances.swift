import GRDBSQLite
import Pathbase

/// The ids of the active instances of the models queried so far, kept in memory so that a
/// query starting from a few rows of the value index checks their status without a b-tree
/// descent each (a random page of the file per candidate: it cost more than the rest of a
/// selective query).
///
/// A model's set is read with one index range scan on its first query, then kept current
/// by this connection's writes of statuses. It is dropped when a transaction of this
/// connection rolls back, and when another connection (another process) commits to the
/// file, which `PRAGMA data_version` tells; the next query reads it again. About 16 bytes
/// per active instance of a queried model. Used while holding the database's lock.
final class ActiveInstances {

    private var sets: [ModelKey: Set<InstanceKey>] = [:]
    private var dataVersion: Int64?
    private var versionStatement: Statement?
    private var scanStatement: Statement?

    /// The active instances of `model`, read if not known or possibly stale.
    func of(_ model: ModelKey, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Set<InstanceKey> {
        try dropIfChangedElsewhere(connection: connection)
        if let set = sets[model] { return set }
        if scanStatement == nil {
            scanStatement = try Statement(
                sql: "SELECT instance FROM current_values WHERE model = ?1 AND property = \(PropertyKey.instanceId) AND type = \(ValueTag.status.rawValue) AND value = \(InstanceStatus.created.rawValue)",
                connection: connection
            )
        }
        guard let scan = scanStatement else { return [] }
        defer { scan.reset() }
        scan.bind(model, at: 1)
        var set = Set<InstanceKey>()
        while true {
            switch scan.step() {
            case SQLITE_ROW: set.insert(InstanceKey(truncatingIfNeeded: scan.int64(at: 0)))
            case SQLITE_DONE:
                sets[model] = set
                return set
            case let code: throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
            }
        }
    }

    /// A status became current through this connection.
    func statusWritten(_ path: Path, tag: Int64, value: StoredValue) {
        guard sets[path.model] != nil else { return }
        if tag == ValueTag.status.rawValue, case .integer(let raw) = value, raw == Int64(InstanceStatus.created.rawValue) {
            sets[path.model]?.insert(path.instance)
        } else {
            sets[path.model]?.remove(path.instance)
        }
    }

    /// Forgets every set: after a rollback, what was added may not be in the file.
    func removeAll() {
        sets.removeAll()
    }

    func finalize() {
        versionStatement?.finalize()
        scanStatement?.finalize()
        versionStatement = nil
        scanStatement = nil
        sets.removeAll()
    }

    /// Drops the sets when another connection committed since they were read.
    private func dropIfChangedElsewhere(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        if versionStatement == nil {
            versionStatement = try Statement(sql: "PRAGMA data_version", connection: connection)
        }
        guard let statement = versionStatement else { return }
        defer { statement.reset() }
        guard statement.step() == SQLITE_ROW else {
            throw .sqlite(code: sqlite3_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
        }
        let version = statement.int64(at: 0)
        if version != dataVersion {
            sets.removeAll()
            dataVersion = version
        }
    }
}
