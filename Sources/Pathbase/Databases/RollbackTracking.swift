/// Where a database stands with writes it may still take back: a transaction that rolls
/// back, an undoable batch that throws, an editing context whose edits are discarded.
///
/// Collections keep the fields they fetched or saved as the base of later saves (a field
/// equal to its base is not written). A base seen inside a transaction that then rolled
/// back was never stored; taking it for stored would make a save of the same struct skip
/// the very fields it has to write. The mark tells a collection whether what it sees now
/// may still be taken back, and lets it notice afterwards that something was. A
/// ``CachedDatabase`` caches no value that may still be taken back.
package struct RollbackMark: Equatable, Sendable {
    /// Whether a write made now may still be taken back.
    package var mayRollBack: Bool
    /// Whether a value read now may be one that is still to be taken back: the database
    /// holds writes it may take back (a read-only transaction holds none).
    package var holdsUncommittedWrites: Bool
    /// How many times the database took writes back since it was opened.
    package var rollbacks: UInt64

    /// `holdsUncommittedWrites` is `mayRollBack` unless told: a database that can't tell
    /// assumes it holds some whenever a write may be taken back.
    package init(mayRollBack: Bool, holdsUncommittedWrites: Bool? = nil, rollbacks: UInt64) {
        self.mayRollBack = mayRollBack
        self.holdsUncommittedWrites = holdsUncommittedWrites ?? mayRollBack
        self.rollbacks = rollbacks
    }
}

/// A database that can take writes back, and tells where it stands (see ``RollbackMark``).
package protocol RollbackTrackingDatabase: Database {
    /// `nil` when the database can't tell (it relies on a wrapped database that can't).
    var rollbackMark: RollbackMark? { get }
}
