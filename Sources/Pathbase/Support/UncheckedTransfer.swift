/// Hands a value that is not `Sendable` from one task or thread to another, where the code
/// guarantees what the compiler cannot: one user at a time (an asset reader or writer moved
/// between database work threads, one chunk after the other), or a value that is in fact
/// thread-safe (a database found by a capability cast).
///
/// The one unchecked box of the package: say at each use why it is safe.
package struct UncheckedTransfer<Value>: @unchecked Sendable {
    // @unchecked: nothing here makes it safe; each use says why handing over its `value` is.

    /// The value handed over.
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
