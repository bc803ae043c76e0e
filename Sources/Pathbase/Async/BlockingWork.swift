import Dispatch

/// Where the async API runs database work: threads of its own, so that file I/O and lock
/// waits never block the cooperative thread pool that runs Swift tasks.
enum BlockingWork {

    /// Dispatch adds threads to a concurrent queue while its work items block, up to its
    /// own limit, instead of stalling the task threads.
    private static let queue = DispatchQueue(label: "Pathbase.database-work", qos: .userInitiated, attributes: .concurrent)

    /// Carries work to the queue. `sending` guarantees the caller keeps no access to what
    /// the work captured, so handing it to one other thread is safe. The work is dropped
    /// before the awaiting task resumes, so what it captured (a database, an asset folder)
    /// is released by then, not whenever the queue frees its block.
    private final class Job<Result>: @unchecked Sendable {
        // @unchecked: `work` came `sending`; only the one queue thread running the job touches it.

        private var work: (() throws -> sending Result)?

        init(_ work: @escaping () throws -> sending Result) {
            self.work = work
        }

        /// Runs the work and resumes `continuation` with its outcome.
        func run(resuming continuation: CheckedContinuation<Result, any Error>) {
            do {
                continuation.resume(returning: try performOnce())
            } catch {
                continuation.resume(throwing: error)
            }
        }

        /// Runs the work, dropping it first: it is released when this returns.
        private func performOnce() throws -> sending Result {
            guard let work else { throw CancellationError() }
            self.work = nil
            return try work()
        }
    }

    /// Runs `work` on the database work queue and returns its result to the awaiting task.
    ///
    /// A task already cancelled does not start the work and throws `CancellationError`;
    /// work that has started runs to its end (a batch is never cut in half).
    static func run<Result>(_ work: sending @escaping () throws -> sending Result) async throws -> sending Result {
        try Task.checkCancellation()
        let job = Job(work)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            queue.async { job.run(resuming: continuation) }
        }
    }
}
