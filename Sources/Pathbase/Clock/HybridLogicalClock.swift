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
public final class HybridLogicalClock: Sendable {

    /// The replica id written into every timestamp.
    public let replica: UInt32

    private let lock = Lock()
    private let lastStorage: LockedState<Timestamp>

    /// Creates a clock for a replica; a random replica id by default.
    public init(replica: UInt32 = .random(in: 1 ... .max)) {
        self.replica = replica
        self.lastStorage = LockedState(Timestamp(time: .min, counter: 0, replica: replica))
    }

    deinit { lastStorage.free() }

    /// The latest timestamp handed out or received; touched only while holding `lock`.
    private var last: Timestamp {
        unsafeAddress { UnsafePointer(lastStorage.pointer) }
        unsafeMutableAddress { lastStorage.pointer }
    }

    /// Returns a timestamp greater than every timestamp returned or received before.
    public func now() -> Timestamp {
        let wall = HybridLogicalClock.wallMicroseconds()
        return lock.withLock {
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
