import Foundation

/// A value that several threads read and change under one lock.
///
/// ```swift
/// let failures = Locked<[String]>([])
/// TestThread.run(count: 8) { index in failures.withLock { $0.append("thread \(index)") } }
/// ```
public final class Locked<Value>: @unchecked Sendable {

    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    public var current: Value {
        withLock { $0 }
    }
}
