import Foundation
import Pathbase
@testable import PathbasePostgres
import Testing

/// The PostgreSQL store's deadlines: a call returns by its deadline even when the work under
/// it cannot be stopped (postgres-nio does not stop a query it has sent when its task is
/// cancelled: a query waiting behind another transaction's lock held its test for good).
@Suite("PostgreSQL store: deadlines that do not wait for their work")
struct PostgresDeadlineTests {

    @Test("a deadline throws .unreachable while its work, which ignores cancellation, still runs", arguments: [0.2, 0])
    func deadlineDoesNotWaitForItsWork(seconds: Double) async throws {
        let released = Locked(false)
        let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        // Releases the work at last, so that a deadline that waits for it ends the test with
        // a failure rather than a hang.
        let release = { @Sendable in
            released.withLock { $0 = true }
            waiting.withLock { $0.take() }?.resume()
        }
        let safety = Task {
            try? await Task.sleep(for: .seconds(60))
            release()
        }
        let error = await #expect(throws: PostgresStoreError.self) {
            try await withDeadline(seconds: seconds) {
                await withCheckedContinuation { continuation in
                    let releasedAlready = released.withLock { released in
                        if !released { waiting.withLock { $0 = continuation } }
                        return released
                    }
                    if releasedAlready { continuation.resume() }
                }
                return 1
            }
        }
        #expect(released.current == false, "the deadline waited for its work to end")
        guard case .unreachable(let reason) = error else {
            Issue.record("not unreachable: \(String(describing: error))")
            return
        }
        #expect(reason.contains("\(seconds) s"))
        safety.cancel()
        release()
    }

    @Test("work that ends in time gives its result or its error")
    func workInTime() async throws {
        #expect(try await withDeadline(seconds: 30) { 42 } == 42)
        await #expect(throws: CancellationError.self) {
            try await withDeadline(seconds: 30) { () throws -> Int in throw CancellationError() }
        }
    }
}
