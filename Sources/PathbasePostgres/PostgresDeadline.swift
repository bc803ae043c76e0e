import Pathbase

/// Runs `body`, or throws ``PostgresStoreError/unreachable(_:)`` once `seconds` have passed,
/// without waiting for `body` to end.
///
/// postgres-nio does not stop a query it has sent when the task running it is cancelled, so
/// a query the server keeps waiting (behind another transaction's lock, say) would hold the
/// caller for as long as the server does: a deadline that waits for its work to end is no
/// deadline. At the deadline `body` is cancelled (which withdraws a wait for a connection);
/// a query already sent ends on its own, and its result is dropped. Cancelling the caller
/// cancels `body` and still returns by the deadline.
func withDeadline<Result: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
    let work = Task { try await body() }
    let waiting = Locked<DeadlineState<Result>>(DeadlineState())
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            // The continuation is in place before the timer starts, so that even a deadline
            // of 0 s finds it.
            waiting.withLock { $0.continuation = continuation }
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                guard !Task.isCancelled, let continuation = waiting.withLock({ $0.take() }) else { return }
                work.cancel()
                continuation.resume(throwing: PostgresStoreError.unreachable("no answer within \(seconds) s"))
            }
            waiting.withLock { $0.timer = timer }
            Task {
                let result = await work.result
                waiting.withLock { $0.take() }?.resume(with: result)
            }
        }
    } onCancel: {
        work.cancel()
    }
}

/// Who resumes the caller of ``withDeadline(seconds:_:)``: the first of the work and the
/// timer to take the continuation; taking it also stops the timer.
private struct DeadlineState<Result: Sendable> {
    var continuation: CheckedContinuation<Result, any Error>?
    var timer: Task<Void, Never>?

    mutating func take() -> CheckedContinuation<Result, any Error>? {
        timer?.cancel()
        timer = nil
        defer { continuation = nil }
        return continuation
    }
}
