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
/// Arithmetic wraps on overflow rather than stopping the program.
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
        contributions.values.reduce(0) { $0 &+ $1.increments &- $1.decrements }
    }

    /// This counter with `delta` added to `replica`'s own totals (a negative `delta` is a
    /// decrement).
    public func adding(_ delta: Int, by replica: UInt32) -> CounterValue {
        guard delta != 0 else { return self }
        var result = self
        var own = contributions[replica] ?? Contribution(increments: 0, decrements: 0)
        if delta > 0 {
            own.increments &+= delta
        } else {
            own.decrements &+= 0 &- delta
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

    /// `current` with the difference between `old` and `new` added as `replica`'s change:
    /// a context's increment adds to the increments committed meanwhile, and an undone
    /// increment is a decrement; `nil` when the difference is 0.
    public static func landing(changeFrom old: CounterValue?, to new: CounterValue?, over current: CounterValue, by replica: UInt32) -> CounterValue? {
        let delta = (new?.value ?? 0) &- (old?.value ?? 0)
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
