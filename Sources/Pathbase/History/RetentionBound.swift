import Foundation

/// How far a database may remove its own history (``HistoryRetention``) without losing
/// what its replica's server has not answered.
package enum RetentionBound: Hashable, Sendable {
    /// The database is no replica: the policy alone decides.
    case unbounded
    /// A replica whose pushes have found no records yet: nothing may go.
    case nothing
    /// Records at or before this moment may go (``Replica/pruningLimit``).
    case through(Timestamp)
}

extension HistoryDatabase {

    /// How far this database may remove its own history, read from the state a ``Replica``
    /// keeps in it (four values; no records scanned).
    package var retentionBound: RetentionBound {
        guard (get(ReplicaState.id) as UInt32?) != nil else { return .unbounded }
        return ReplicaState.pruningLimit(in: self).map { .through($0) } ?? .nothing
    }
}
