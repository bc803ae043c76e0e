import Dispatch

/// Where the async API runs database work: threads of its own, so that file I/O and lock
/// waits never block the cooperative thread pool that runs Swift tasks.
enum BlockingWork {

    /// Dispatch adds threads to a concurrent queue while its work items block, up to its
    /// own limit, instead of stalling the task threads.
    private static let queue = DispatchQueue(label: "Pathbase.database-work", qos: .userInitiated, attributes: .concurrent)

    /// Carries work to the queue. `sending` guarantees the caller keeps no access to what
    /// the work captured, so handing it to one other thread is safe.
    private struct Job<Result>: @unchecked Sendable {
        let work: () throws -> sending Result
    }

    /// Runs `work` on the database work queue and returns its result to the awaiting task.
    ///
    /// A task already cancelled does not start the work and throws `CancellationError`;
    /// work that has started runs to its end (a batch is never cut in half).
    static func run<Result>(_ work: sending @escaping () throws -> sending Result) async throws -> sending Result {
        try Task.checkCancellation()
        let job = Job(work: work)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            queue.async {
                do {
                    continuation.resume(returning: try job.work())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
