import Foundation

/// A thread of its own (not a task on the shared pool) that a test starts and joins.
///
/// ```swift
/// let writer = TestThread { database.set(1, for: path) }
/// #expect(writer.join())
/// ```
///
/// Stress tests use real threads so that `count` writers really run at once, whatever the
/// size of the cooperative pool; ``run(count:_:)`` starts them all at the same moment.
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
    public func join(timeout: TimeInterval = 600) -> Bool {
        running.wait(timeout: .now() + timeout) == .success
    }

    /// Runs `body(index)` on `count` threads that start together (each waits at a barrier
    /// until all exist), and waits until all have finished; whether they all did in time.
    @discardableResult
    public static func run(count: Int, timeout: TimeInterval = 600, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let threads = (0..<count).map { index in
            TestThread {
                ready.signal()
                start.wait()
                body(index)
            }
        }
        for _ in 0..<count { ready.wait() }
        for _ in 0..<count { start.signal() }
        return threads.allSatisfy { $0.join(timeout: timeout) }
    }
}
