import Foundation

/// A value one thread hands to another: `take` waits until another thread calls `put`.
///
/// ```swift
/// let ready = Handoff<Int>()
/// TestThread { ready.put(42) }
/// let value = ready.take()   // 42, or nil if nobody put a value within the timeout
/// ```
///
/// A barrier between threads, so that a test knows the other thread got where it must be
/// instead of sleeping and hoping it did. `take` times out so that a bug fails the test
/// instead of hanging it.
public final class Handoff<Value: Sendable>: @unchecked Sendable {

    private let condition = NSCondition()
    private var value: Value?

    public init() {}

    /// Hands `value` to the thread that calls (or is waiting in) `take`.
    public func put(_ value: Value) {
        condition.lock()
        self.value = value
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the value that another thread puts, at most `timeout` seconds; `nil` if it
    /// never came.
    public func take(timeout: TimeInterval = 30) -> Value? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(until: deadline) { break }
        }
        defer { value = nil }
        return value
    }
}
