/// A database that keeps its replica identity in its storage (an `SQLiteDatabase` file, for
/// every process that opens it) and can take a new one: what a ``Replica`` asks of it when the
/// server answers that another file pushes under its id.
package protocol ReplicaIdentityKeeping: AnyObject {

    /// Stores a new random replica id for the later writes, retiring the current one among
    /// the earlier ids (its records stay the database's own), and makes the database's
    /// clock stamp with it; returns it.
    func takeNewReplicaIdentity() throws -> UInt32
}
