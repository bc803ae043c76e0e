import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

@Suite("HybridLogicalClock and Timestamp")
struct HybridLogicalClockTests {

    @Test("now() is strictly increasing and carries the replica id")
    func strictlyIncreasing() {
        let clock = HybridLogicalClock(replica: 42)
        var previous = clock.now()
        for _ in 0 ..< 10_000 {
            let next = clock.now()
            #expect(next > previous)
            #expect(next.replica == 42)
            previous = next
        }
    }

    @Test("now() follows the wall clock")
    func followsWallClock() {
        let clock = HybridLogicalClock(replica: 1)
        let before = Date()
        let stamp = clock.now()
        let after = Date()
        #expect(stamp.date.timeIntervalSince(before) > -0.001)
        #expect(stamp.date.timeIntervalSince(after) < 0.001)
    }

    @Test("receive(_:) moves the clock past a timestamp from the future")
    func receiveFuture() {
        let clock = HybridLogicalClock(replica: 1)
        let local = clock.now()
        let remote = Timestamp(time: local.time + 60_000_000, counter: 7, replica: 99)
        clock.receive(remote)
        let next = clock.now()
        #expect(next > remote)
        #expect(next.replica == 1)
        #expect(clock.now() > next)
    }

    @Test("receive(_:) of a timestamp with the highest counter still moves past it")
    func receiveMaxCounter() {
        let clock = HybridLogicalClock(replica: 1)
        let remote = Timestamp(time: clock.now().time + 60_000_000, counter: .max, replica: .max)
        clock.receive(remote)
        #expect(clock.now() > remote)
    }

    @Test("receive(_:) of an old timestamp does not move the clock back")
    func receivePast() {
        let clock = HybridLogicalClock(replica: 1)
        let local = clock.now()
        clock.receive(Timestamp(time: local.time - 60_000_000, counter: 0, replica: 2))
        #expect(clock.now() > local)
    }

    @Test("now() from many threads at once never repeats")
    func concurrentReadings() async {
        let clock = HybridLogicalClock(replica: 3)
        let parts = Locked<[[Timestamp]]>([])
        let finished = await TestThread.run(count: 8) { _ in
            let part = (0 ..< 5_000).map { _ in clock.now() }
            parts.withLock { $0.append(part) }
        }
        #expect(finished)
        for part in parts.current {
            #expect(part == part.sorted())
        }
        #expect(Set(parts.current.joined()).count == 40_000)
    }

    @Test("Timestamps order by time, then counter, then replica")
    func ordering() {
        #expect(Timestamp(time: 1, counter: 9, replica: 9) < Timestamp(time: 2, counter: 0, replica: 0))
        #expect(Timestamp(time: 1, counter: 1, replica: 9) < Timestamp(time: 1, counter: 2, replica: 0))
        #expect(Timestamp(time: 1, counter: 1, replica: 1) < Timestamp(time: 1, counter: 1, replica: 2))
        #expect(Timestamp(time: 1, counter: 1, replica: 1) == Timestamp(time: 1, counter: 1, replica: 1))
        #expect(Timestamp.zero < Timestamp(time: 0))
        #expect(Timestamp(time: .max - 1) < Timestamp.max)
    }

    @Test("A timestamp describes itself as date, counter and replica, also at the extremes")
    func description() {
        let text = "\(Timestamp(time: 0, counter: 3, replica: 4))"
        #expect(text.hasPrefix("1970-01-01"))
        #expect(text.hasSuffix("#3@4"))
        #expect(!"\(Timestamp.zero)".isEmpty)
        #expect(!"\(Timestamp.max)".isEmpty)
    }

    @Test("Timestamp(latestAt:) is at or after every write made at or before the date")
    func latestAtDate() {
        let clock = HybridLogicalClock(replica: 5)
        let stamp = clock.now()
        let later = stamp.date.addingTimeInterval(0.001)
        #expect(Timestamp(latestAt: later) > stamp)
        let earlier = stamp.date.addingTimeInterval(-0.001)
        #expect(Timestamp(latestAt: earlier) < stamp)
    }

    @Test("A hostile timestamp at the end of time stops the clock there instead of crashing it")
    func endOfTime() {
        let clock = HybridLogicalClock(replica: 3)
        clock.receive(Timestamp.max)
        let first = clock.now()
        let second = clock.now()
        #expect(first.time == .max)
        #expect(second >= first)
    }
}
