/// The stored state of a `.counter` property: every replica's increments and decrements.
///
/// ```swift
/// @Property(id: 1, merge: .counter)
/// var likes: Int
///
/// post.likes += 1
/// ```
///
/// A state-based PN-counter: each replica only ever raises its own two totals, so two
/// states merge by taking the larger total of every replica, and the value is the sum of
/// all increments minus all decrements, whatever order the replicas' records arrive in.
///
/// **Overflow.** A replica's totals stop at `Int.max` (they never wrap: a wrapped total
/// would be smaller, and the join by the larger total would keep the old one on some
/// replicas and the wrapped one on none, so replicas would read different values), and the
/// value stops at `Int.min` / `Int.max`. A counter whose totals reached `Int.max` no longer
/// moves in that direction — on every replica alike. Keep counters for counts; a value that
/// jumps across the whole `Int` range (`likes = .max`, then `0`) belongs in a plain property.
public struct CounterValue: MergeableValue, Sendable {

    /// One replica's totals.
    public struct Contribution: Hashable, Sendable {
        /// The sum of the replica's increments.
        public var increments: Int
        /// The sum of the replica's decrements, as a positive number.
        public var decrements: Int
    }

    /// Each replica's totals, by replica id.
    public private(set) var contributions: [UInt32: Contribution]

    /// An empty counter: value 0.
    public init() {
        contributions = [:]
    }

    /// The sum of every increment minus every decrement.
    public var value: Int {
        // Summed exactly (wrapping, with a count of the wraps), then cut at the ends: the
        // same in whatever order the replicas' totals come.
        var total = 0
        var wraps = 0
        for contribution in contributions.values {
            let (sum, overflow) = total.addingReportingOverflow(contribution.increments)
            if overflow { wraps += contribution.increments > 0 ? 1 : -1 }
            let (difference, underflow) = sum.subtractingReportingOverflow(contribution.decrements)
            if underflow { wraps += contribution.decrements > 0 ? -1 : 1 }
            total = difference
        }
        return wraps > 0 ? .max : wraps < 0 ? .min : total
    }

    /// `a + b`, stopping at `Int.min` / `Int.max` instead of overflowing.
    @usableFromInline
    static func clamped(_ a: Int, plus b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// `new - old`, stopping at `Int.min` / `Int.max` instead of overflowing: the change a
    /// write from `old` to `new` adds.
    @usableFromInline
    static func change(from old: Int, to new: Int) -> Int {
        let (difference, overflow) = new.subtractingReportingOverflow(old)
        return overflow ? (new > old ? .max : .min) : difference
    }

    /// This counter with `delta` added to `replica`'s own totals (a negative `delta` is a
    /// decrement).
    public func adding(_ delta: Int, by replica: UInt32) -> CounterValue {
        guard delta != 0 else { return self }
        var result = self
        var own = contributions[replica] ?? Contribution(increments: 0, decrements: 0)
        // Totals stop at Int.max: never smaller than before, so the join stays a join.
        if delta > 0 {
            own.increments = Self.clamped(own.increments, plus: delta)
        } else {
            own.decrements = Self.clamped(own.decrements, plus: delta == .min ? .max : -delta)
        }
        result.contributions[replica] = own
        return result
    }

    /// Every replica's larger totals.
    public func merged(with other: CounterValue) -> CounterValue {
        var result = self
        for (replica, theirs) in other.contributions {
            let mine = contributions[replica] ?? Contribution(increments: 0, decrements: 0)
            result.contributions[replica] = Contribution(
                increments: Swift.max(mine.increments, theirs.increments),
                decrements: Swift.max(mine.decrements, theirs.decrements)
            )
        }
        return result
    }

    /// This counter with `old`'s totals since `base` moved to `new`'s: `old` keeps the
    /// totals of `base`, `new` gets the rest (see ``MergeableValue/rehomed(from:to:since:)``).
    public func rehomed(from old: UInt32, to new: UInt32, since base: CounterValue?) -> CounterValue {
        guard let mine = contributions[old] else { return self }
        let kept = base?.contributions[old] ?? Contribution(increments: 0, decrements: 0)
        var result = self
        result.contributions[old] = kept.increments == 0 && kept.decrements == 0 ? nil : kept
        let moved = result.contributions[new] ?? Contribution(increments: 0, decrements: 0)
        result.contributions[new] = Contribution(
            increments: Self.clamped(moved.increments, plus: Swift.max(0, mine.increments &- kept.increments)),
            decrements: Self.clamped(moved.decrements, plus: Swift.max(0, mine.decrements &- kept.decrements))
        )
        return result
    }

    /// `current` with the difference between `old` and `new` added as `replica`'s change:
    /// a context's increment adds to the increments committed meanwhile, and an undone
    /// increment is a decrement; `nil` when the difference is 0.
    public static func landing(changeFrom old: CounterValue?, to new: CounterValue?, over current: CounterValue, by replica: UInt32) -> CounterValue? {
        let delta = change(from: old?.value ?? 0, to: new?.value ?? 0)
        return delta == 0 ? nil : current.adding(delta, by: replica)
    }

    /// Encodes the totals as one flat list ordered by replica id (replica, increments,
    /// decrements, …), so equal states encode to equal bytes on every replica.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for replica in contributions.keys.sorted() {
            guard let contribution = contributions[replica] else { continue }
            try container.encode(replica)
            try container.encode(contribution.increments)
            try container.encode(contribution.decrements)
        }
    }

    /// Decodes the flat list of totals.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var contributions: [UInt32: Contribution] = [:]
        while !container.isAtEnd {
            let replica = try container.decode(UInt32.self)
            let increments = try container.decode(Int.self)
            let decrements = try container.decode(Int.self)
            contributions[replica] = Contribution(increments: increments, decrements: decrements)
        }
        self.contributions = contributions
    }
}
