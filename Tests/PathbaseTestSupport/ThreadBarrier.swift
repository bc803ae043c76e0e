import Foundation

/// Makes a fixed number of threads meet before each goes on, round after round, so that a
/// concurrency test really runs its steps at the same time instead of hoping for it.
///
/// A thread that waits longer than `timeout` gets `false` (and the test fails) instead of
/// hanging the suite.
public final class ThreadBarrier: @unchecked Sendable {

    private let condition = NSCondition()
    private let parties: Int
    private let timeout: TimeInterval
    private var arrived = 0
    private var round = 0
    private var broken = false

    public init(parties: Int, timeout: TimeInterval = 30) {
        self.parties = parties
        self.timeout = timeout
    }

    /// Waits until every party arrived; `false` on timeout (then every later wait fails too).
    public func arriveAndWait() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !broken else { return false }
        let myRound = round
        arrived += 1
        if arrived == parties {
            arrived = 0
            round += 1
            condition.broadcast()
            return true
        }
        let deadline = Date().addingTimeInterval(timeout)
        while round == myRound, !broken {
            if !condition.wait(until: deadline) {
                broken = true
                condition.broadcast()
            }
        }
        return !broken
    }
}
