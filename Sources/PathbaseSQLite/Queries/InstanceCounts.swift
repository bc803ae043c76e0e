import Pathbase

/// The numbers of active and deleted instances per model (``SQLiteDatabase/modelSummaries()``),
/// kept in memory once counted, so that a tool asking again (Studio's overview on every
/// page load) does not read every instance's body again.
///
/// Counting costs one scan of `instance_values`; nothing is stored in the file, so writes pay
/// nothing for it (a count row kept per commit cost 15–25% of a one-object commit and was
/// reverted). The numbers are dropped when this connection writes a status, when a
/// transaction of it rolls back, and when another connection (another process) committed,
/// which `PRAGMA data_version` tells; the next call counts again. Used while holding the
/// database's lock.
final class InstanceCounts: RowMirror {

    private var summaries: [ModelSummary]?
    private var countedVersion: Int64?
    private var dataVersion = DataVersion()

    /// The counts, from memory when nothing changed since they were counted, else from
    /// `count`, which runs after the version is read (a commit in between only makes the
    /// next call count again).
    func summaries(handle: OpaquePointer, count: () throws(SQLiteDatabaseError) -> [ModelSummary]) throws(SQLiteDatabaseError) -> [ModelSummary] {
        let version = try dataVersion.read(handle: handle)
        if let summaries, let version, version == countedVersion { return summaries }
        let counted = try count()
        summaries = counted
        countedVersion = version
        return counted
    }

    /// A status became current through this connection.
    func statusWritten() {
        summaries = nil
    }

    func rowsRolledBack() {
        summaries = nil
    }

    func finalize() {
        dataVersion.finalize()
        summaries = nil
    }
}
