/// How concurrent writes of one property combine on every replica.
///
/// ```swift
/// @Model(id: 1)
/// final class Post {
///     @Property(id: 1, merge: .counter)
///     var likes: Int
///
///     @Property(id: 2, merge: .max)
///     var highestBid: Int
/// }
///
/// post.likes += 1 // increments made on different replicas add up
/// ```
///
/// **How a policy lives in records.** A property with a policy other than ``newestWins``
/// stores a ``MergeableValue``: a state that forms a join semilattice (``MaximumValue``,
/// ``MinimumValue``, ``CounterValue``, ``UnionValue``), while the model reads and writes the plain value
/// (`Int` for `likes`). Records stay ordinary timestamped records, opaque to a sync server,
/// and every store keeps "newest wins" per path. What makes concurrent writes combine is one
/// rule at the replica: when a record is applied (a pull, an import: ``HistoryDatabase/apply(_:)``)
/// and the path then holds a state that does not include the state it held before, the
/// replica writes the join of the two as its own newer record, which it pushes like any
/// other. The join is commutative, associative and idempotent, and each such write makes the
/// replica's state strictly larger, so records arriving in any order, duplicated or replayed
/// leave every replica with the join of every state written, and the rule writes nothing
/// once replicas agree: two replicas never answer each other's joins forever.
///
/// Local writes go through the join too: setting a `.max` property keeps the larger of the
/// stored and the new value; setting a `.counter` adds the difference to this replica's own
/// contribution (``CounterValue/adding(_:by:)``), so `likes += 1` is an increment. An
/// in-place change (`likes += 1`, `tags.insert(x)`) is one atomic change of the difference
/// from the value read when the access began, so several threads incrementing one object at
/// once, or a pull applied meanwhile, lose nothing; a plain assignment sets the value. A commit
/// of an ``EditingContext`` and an ``UndoableDatabase``'s undo and redo land the change they
/// carry on the current state (``MergeableValue/landing(changeFrom:to:over:by:)``): a
/// context's increment adds to the increments committed meanwhile, an undone increment is a
/// decrement, and an undone `.max` write changes nothing (the largest value stays the
/// largest). Properties without a policy store exactly what they stored before.
///
/// Applying a pulled record needs the state's Swift type. The states of `Int`, `Double`,
/// `String`, `Date` and the other natively stored comparable types are known to every
/// process; a `.max` or `.min` of your own `Comparable` type becomes known with the first
/// write of the property in the process, or by ``MergeableTypes/register(_:)`` at launch
/// (before a first sync), which is what a replica that pulls before writing needs.
///
/// Queries that filter or sort by a property with a policy run in memory, on the plain values.
public enum MergePolicy: Sendable, Hashable {

    /// The newest write wins (by ``Timestamp``): the default of every property.
    case newestWins

    /// The largest value ever written wins; for `Comparable` values (``MaximumValue``).
    case max

    /// The smallest value ever written wins; for `Comparable` values (``MinimumValue``).
    case min

    /// Changes made on different replicas add up; for `Int` (``CounterValue``).
    case counter

    /// Elements added on any replica stay unless a replica removed them after seeing their
    /// addition (add-wins observed-remove); for `Set` properties and reference lists
    /// (``UnionValue``).
    case union
}
