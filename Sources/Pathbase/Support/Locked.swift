/// A value that several threads read and change under one ``Lock``: the package's one
/// lock-plus-state type (its hot paths keep ``LockedState`` behind their own lock instead).
///
/// ```swift
/// let names = Locked<[String: Int]>([:])
/// names.withLock { $0["alice"] = 1 }
/// ```
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is touched only while holding `lock`.

    private let lock = Lock()
    // Every access holds the lock, so Swift's dynamic exclusivity check would only cost.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; `body` must not take it again.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }

    /// A copy of the value.
    package var current: Value {
        withLock { $0 }
    }
}
