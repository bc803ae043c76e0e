import Pathbase
import Foundation

/// A thread of its own (not a task on the shared pool) that a test starts and joins.
///
/// ```swift
/// let writer = TestThread { database.set(1, for: path) }
/// #expect(await writer.join())
/// ```
///
/// Stress tests use real threads so that `count` writers really run at once, whatever the
/// size of the cooperative pool; ``run(count:timeout:_:)`` starts them all at the same
/// moment. Waiting for them suspends instead of blocking: a test blocked on a thread of the
/// cooperative pool (two on a two-core machine) would stall every async test meanwhile.
public final class TestThread: Sendable {

    private let running = DispatchGroup()

    /// Starts a thread that runs `body`.
    public init(_ body: @escaping @Sendable () -> Void) {
        let running = self.running
        running.enter()
        let thread = Thread {
            body()
            running.leave()
        }
        thread.start()
    }

    /// Whether the thread's body has returned.
    public var isFinished: Bool {
        running.wait(timeout: .now()) == .success
    }

    /// Waits until the thread's body has returned, at most `timeout` seconds; whether it did.
    public func join(timeout: TimeInterval = 600) async -> Bool {
        await withCheckedContinuation { continuation in
            let resumed = Locked(false)
            let resume: @Sendable (Bool) -> Void = { finished in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: finished) }
            }
            running.notify(queue: .global()) { resume(true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { resume(false) }
        }
    }

    /// Runs `body(index)` on `count` threads that start together (each waits at a barrier
    /// until all exist), and waits until all have finished; whether they all did in time.
    @discardableResult
    public static func run(count: Int, timeout: TimeInterval = 600, _ body: @escaping @Sendable (Int) -> Void) async -> Bool {
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let threads = (0 ..< count).map { index in
            TestThread {
                ready.signal()
                start.wait()
                body(index)
            }
        }
        for _ in 0 ..< count { ready.wait() }
        for _ in 0 ..< count { start.signal() }
        for thread in threads where await !thread.join(timeout: timeout) { return false }
        return true
    }
}
