#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hybrid logical clock: hands out strictly increasing ``Timestamp``s for one replica.
///
/// Readings follow the wall clock while it moves forward, and never go backwards when it
/// does not. After ``receive(_:)`` of a timestamp from another replica, every later reading
/// is greater than it, so causally later writes always win, even across skewed clocks.
///
/// ```swift
/// let clock = HybridLogicalClock(replica: 7)
/// let stamp = clock.now()
/// clock.receive(remoteStamp) // from a sync
/// assert(clock.now() > remoteStamp)
/// ```
///
/// The clock is safe to use from any thread.
///
/// **Identity.** A clock made without an id (`HybridLogicalClock()`) takes a random one and
/// adopts the identity of the first database file that stores one: an `SQLiteDatabase`
/// keeps its replica id in the file, so every open of it, in every process, stamps with the
/// same id. A clock made with an id keeps it.
public final class HybridLogicalClock: Sendable {

    /// The replica id written into every timestamp: the id given, or the identity of the
    /// database file the clock adopted.
    public var replica: UInt32 {
        lock.withLock { state.last.replica }
    }

    /// The ids the clock's database wrote with before it kept an identity of its own (an
    /// older file, or one written by several ids), adopted with it: a ``Replica`` counts
    /// their records as its own. Empty for a clock that adopted no identity.
    public var earlierReplicas: [UInt32] {
        lock.withLock { state.earlier }
    }

    private struct State {
        var last: Timestamp
        var adoptsIdentity: Bool
        /// Made without an id: the clock follows its database's identity, also when the
        /// database takes a new one (``takeNewIdentity(_:earlier:)``).
        var followsDatabase: Bool
        var earlier: [UInt32]
    }

    private let lock = Lock()
    private let stateStorage: LockedState<State>

    /// Creates a clock with a random replica id, which adopts the identity of the first
    /// database file that keeps one (see ``adoptIdentity(_:earlier:)``).
    public convenience init() {
        self.init(replica: .random(in: 1 ... .max), adoptsIdentity: true)
    }

    /// Creates a clock for a replica id, which it keeps.
    public convenience init(replica: UInt32) {
        self.init(replica: replica, adoptsIdentity: false)
    }

    private init(replica: UInt32, adoptsIdentity: Bool) {
        self.stateStorage = LockedState(State(last: Timestamp(time: .min, counter: 0, replica: replica), adoptsIdentity: adoptsIdentity, followsDatabase: adoptsIdentity, earlier: []))
    }

    deinit { stateStorage.free() }

    /// Takes a database's stored identity as this clock's replica id, once: a clock made
    /// without an id that has not adopted one yet does, and returns `true`; any other keeps
    /// its id and returns `false`. `earlier` are the ids the database wrote with before it
    /// kept its identity.
    ///
    /// ```swift
    /// let clock = HybridLogicalClock()
    /// clock.adoptIdentity(42, earlier: [7])  // true: clock.replica == 42
    /// ```
    @discardableResult
    public func adoptIdentity(_ replica: UInt32, earlier: [UInt32] = []) -> Bool {
        lock.withLock {
            guard state.adoptsIdentity else { return false }
            state.adoptsIdentity = false
            state.last = Timestamp(time: state.last.time, counter: state.last.counter, replica: replica)
            state.earlier = earlier.filter { $0 != replica }
            return true
        }
    }

    /// Takes a new replica id for every later reading, keeping the time: what a database
    /// does when it finds it is a copy, a moved file or a restored backup of another replica
    /// (see `SQLiteDatabase`'s identity) or when a sync server answers that another file
    /// writes under its id. The id it had joins ``earlierReplicas``, so its records stay
    /// the database's own. Only a clock made without an id follows its database this way;
    /// one made with an id keeps it and returns `false`.
    ///
    /// ```swift
    /// let clock = HybridLogicalClock()
    /// clock.adoptIdentity(42)
    /// clock.takeNewIdentity(43) // true: clock.replica == 43, clock.earlierReplicas == [42]
    /// ```
    @discardableResult
    public func takeNewIdentity(_ replica: UInt32, earlier: [UInt32]? = nil) -> Bool {
        lock.withLock {
            guard state.followsDatabase else { return false }
            let old = state.last.replica
            guard old != replica else { return true }
            state.adoptsIdentity = false
            var earlierIds = earlier ?? state.earlier
            if earlier == nil, !earlierIds.contains(old) { earlierIds.append(old) }
            state.earlier = earlierIds.filter { $0 != replica }
            state.last = Timestamp(time: state.last.time, counter: state.last.counter, replica: replica)
            return true
        }
    }

    /// Whether the clock follows its database's identity: made without an id, so that it
    /// takes the identity a database keeps, and a new one when the database takes one.
    public var followsDatabaseIdentity: Bool {
        lock.withLock { state.followsDatabase }
    }

    /// Whether the clock would adopt a database's identity (made without an id, none
    /// adopted yet).
    public var adoptsIdentity: Bool {
        lock.withLock { state.adoptsIdentity }
    }

    /// The clock's state; touched only while holding `lock`.
    private var state: State {
        unsafeAddress { UnsafePointer(stateStorage.pointer) }
        unsafeMutableAddress { stateStorage.pointer }
    }

    /// The latest timestamp handed out or received; touched only while holding `lock`.
    private var last: Timestamp {
        get { state.last }
        set { state.last = newValue }
    }

    /// Returns a timestamp greater than every timestamp returned or received before.
    public func now() -> Timestamp {
        let wall = HybridLogicalClock.wallMicroseconds()
        return lock.withLock {
            let replica = last.replica
            let next: Timestamp
            if wall > last.time {
                next = Timestamp(time: wall, counter: 0, replica: replica)
            } else if last.counter < .max {
                next = Timestamp(time: last.time, counter: last.counter + 1, replica: replica)
            } else if last.time < .max {
                next = Timestamp(time: last.time + 1, counter: 0, replica: replica)
            } else {
                // Only a hostile timestamp at the end of time gets here: stay there rather
                // than overflow.
                next = last
            }
            last = next
            return next
        }
    }

    /// Moves the clock past a timestamp seen from elsewhere (a synced record), so that later
    /// local writes order after it.
    public func receive(_ timestamp: Timestamp) {
        lock.withLock {
            let replica = last.replica
            if timestamp.time > last.time || (timestamp.time == last.time && timestamp.counter > last.counter) {
                last = Timestamp(time: timestamp.time, counter: timestamp.counter, replica: replica)
            }
        }
    }

    static func wallMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
