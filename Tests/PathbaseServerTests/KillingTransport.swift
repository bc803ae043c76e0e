import Pathbase
import PathbaseTestSupport

/// A transport that kills a `pathbase serve` process while a chosen push request is in
/// flight: requests before it go through and are acknowledged, so a kill test knows the
/// fault hit mid-work (some records acknowledged, some not) instead of trusting a sleep
/// to land between the first and the last batch.
final class KillingTransport: SyncTransport, @unchecked Sendable {
    private let base: any SyncTransport
    private let server: ServeProcess
    private let killedPush: Int
    private let pushes = Locked(0)

    /// Kills `server` during push number `killedPush` (1 for the first) sent through `base`.
    init(base: any SyncTransport, killing server: ServeProcess, duringPush killedPush: Int) {
        self.base = base
        self.server = server
        self.killedPush = killedPush
    }

    func push(_ request: PushRequest) async throws -> PushResponse {
        let number = pushes.withLock { count in
            count += 1
            return count
        }
        guard number == killedPush else { return try await base.push(request) }
        // The request is under way when the kill lands; the server may or may not store it.
        async let response = base.push(request)
        try await Task.sleep(for: .milliseconds(1))
        server.kill()
        return try await response
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        try await base.pull(request)
    }
}
