import Foundation

/// Runs `body` on a thread of its own and suspends until it returns (or throws).
///
/// ```swift
/// let status = try await onOwnThread { try child.wait(timeout: 60) }
/// ```
///
/// For a blocking wait — a child process to end, a line to appear in its output — from async
/// code: the cooperative pool has as many threads as the machine has cores (two in CI), and
/// while a test holds one in a wait, every other test's task waits for the other, an
/// in-process server's answer or a PostgreSQL reply among them, until their own timeouts
/// fire.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
