/// A stored state that merges with concurrent states of the same path: what a property
/// with a ``MergePolicy`` other than ``MergePolicy/newestWins`` stores.
///
/// ```swift
/// let a = MaximumValue(3), b = MaximumValue(5)
/// print(a.merged(with: b).value) // 5
/// ```
///
/// ``merged(with:)`` must be a join: commutative, associative and idempotent, so that
/// replicas that merge in any order reach the same state.
public protocol MergeableValue: DatabaseValue, Equatable {

    /// The join of two states: what holds everything either holds.
    func merged(with other: Self) -> Self

    /// The state to write when a change from `old` to `new`, made apart from `current` (in
    /// an editing context, or an undo or redo), lands on `current` as a write of `replica`;
    /// `nil` when the change leaves `current` as it is. `nil` for `old` or `new` is the
    /// state of a path holding nothing.
    ///
    /// The default merges `new` in: the change of a state that only grows. ``CounterValue``
    /// adds the difference instead, so a context's increment adds to increments made
    /// meanwhile and an undone increment is a decrement.
    static func landing(changeFrom old: Self?, to new: Self?, over current: Self, by replica: UInt32) -> Self?

    /// This state with what replica `old` added since `base` moved to replica `new`: what a
    /// replica does when it learns that another file wrote under its id (a copy or a restored
    /// backup, see ``Replica``), so that what it issued under that id after `base` is not
    /// confused with what the other file issued under it. `base` is the state the server
    /// acknowledged (`nil`: none). The default returns `self`: states that keep no replica
    /// ids (``MaximumValue``, ``MinimumValue``) have nothing to move.
    func rehomed(from old: UInt32, to new: UInt32, since base: Self?) -> Self
}

extension MergeableValue {

    /// `self`: a state without replica ids has nothing to move.
    public func rehomed(from old: UInt32, to new: UInt32, since base: Self?) -> Self { self }

    /// Merges `new` into `current`; `nil` when `current` already holds it.
    public static func landing(changeFrom old: Self?, to new: Self?, over current: Self, by replica: UInt32) -> Self? {
        guard let new else { return nil }
        let merged = current.merged(with: new)
        return merged == current ? nil : merged
    }
}

/// The identity that a database's own contributions to a ``CounterValue`` (and additions to
/// a ``UnionValue``) are kept under: the replica id of its clock, or 0 for a database without
/// history (which does not synchronize). An editing context keeps no history of its own but
/// writes its states to its database, so its changes are that database's: were they kept
/// under 0, two replicas' first increments made in contexts would share one contribution and
/// merge to the larger instead of the sum.
func mergeReplica(of database: any Database) -> UInt32 {
    database.writeClock?.replica ?? 0
}

extension HistoryDatabase {

    /// After `incoming` was stored at a path that held `before`: writes the join of the two
    /// mergeable states as this database's own newer record, unless the path already holds
    /// it (the newer of the two). Nothing for values without a merge policy.
    func writeJoin(of incoming: any MergeableValue, over before: Record, incomingIsNewer: Bool) {
        guard let held = MergeableTypes.mergeable(before.value),
            let joined = incoming.joinToWrite(before: held, incomingIsNewer: incomingIsNewer)
        else { return }
        // With a timestamp: synchronization's write, never an undoable step.
        set(erased: joined, for: before.path, timestamp: clock.now())
    }
}

extension Database {

    /// The value to write when a change from `old` to `new` (made in an editing context, or
    /// an undo or redo) lands on what `path` holds now; `new` itself for values without a
    /// merge policy, `nil` when the change leaves the mergeable state as it is.
    func landedValue(_ new: any DatabaseValue, changedFrom old: (any DatabaseValue)?, at path: Path) -> (any DatabaseValue)? {
        if let new = MergeableTypes.mergeable(new) {
            return new.landedOpened(changedFrom: old, at: path, in: self)
        }
        // A change back to nothing stored (an undo of a first write) of a mergeable state.
        if let old = old.flatMap(MergeableTypes.mergeable) {
            return old.landedEmptied(at: path, in: self)
        }
        return new
    }
}

extension MergeableValue {

    /// The join of `self` (just applied) and `before`, when the newer of the two is not it.
    fileprivate func joinToWrite(before: any MergeableValue, incomingIsNewer: Bool) -> Self? {
        guard let before = before as? Self else { return nil }
        let joined = before.merged(with: self)
        return joined == (incomingIsNewer ? self : before) ? nil : joined
    }

    fileprivate func landedOpened(changedFrom old: (any DatabaseValue)?, at path: Path, in database: some Database) -> (any DatabaseValue)? {
        guard let current: Self = database.get(path) else { return self }
        let old = old.flatMap(MergeableTypes.mergeable) as? Self
        return Self.landing(changeFrom: old, to: self, over: current, by: mergeReplica(of: database))
    }

    fileprivate func landedEmptied(at path: Path, in database: some Database) -> (any DatabaseValue)? {
        guard let current: Self = database.get(path) else { return nil }
        return Self.landing(changeFrom: self, to: nil, over: current, by: mergeReplica(of: database))
    }
}

extension MergeableValue {

    /// ``rehomed(from:to:since:)`` for a state known only as a mergeable value; `nil` when
    /// nothing moved (or `base` is of another type, taken as none).
    func rehomedChange(from old: UInt32, to new: UInt32, since base: (any MergeableValue)?) -> Self? {
        let moved = rehomed(from: old, to: new, since: base as? Self)
        return moved == self ? nil : moved
    }
}
