/// Where a database stands with writes it may still take back: a transaction that rolls
/// back, an undoable batch that throws, an editing context whose edits are discarded.
///
/// Collections keep the fields they fetched or saved as the base of later saves (a field
/// equal to its base is not written). A base seen inside a transaction that then rolled
/// back was never stored; taking it for stored would make a save of the same struct skip
/// the very fields it has to write. The mark tells a collection whether what it sees now
/// may still be taken back, and lets it notice afterwards that something was.
package struct RollbackMark: Equatable, Sendable {
    /// Whether a write made now may still be taken back.
    package var mayRollBack: Bool
    /// How many times the database took writes back since it was opened.
    package var rollbacks: UInt64

    package init(mayRollBack: Bool, rollbacks: UInt64) {
        self.mayRollBack = mayRollBack
        self.rollbacks = rollbacks
    }
}

/// A database that can take writes back, and tells where it stands (see ``RollbackMark``).
package protocol RollbackTrackingDatabase: Database {
    /// `nil` when the database can't tell (it relies on a wrapped database that can't).
    var rollbackMark: RollbackMark? { get }
}
