import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

@Suite("AutomaticSync: syncs on local changes and on an interval, retries with backoff, stops on refusals")
struct AutomaticSyncTests {

    private let path = Path(model: 6, instance: 1, property: 1)

    /// The first state of `sync` that `predicate` accepts, failing after `within` (generous:
    /// on a loaded two-core machine other tests may hold the cooperative pool for seconds).
    // The bound only matters when the state never comes. Under the Thread Sanitizer, with
    // the other concurrency suites running in the same process on two cores, the waiting
    // task went more than 60 s without a thread after the state had come.
    private func firstState(
        of sync: AutomaticSync, within: Duration = .seconds(300),
        where predicate: @escaping @Sendable (AutomaticSync.State) -> Bool
    ) async throws -> AutomaticSync.State {
        let states = sync.states
        let found = try await withThrowingTaskGroup(of: AutomaticSync.State?.self) { group in
            group.addTask {
                for await status in states where predicate(status.state) { return status.state }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: within)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let found else { throw HTTPTestFailure("no expected state within \(within); last: \(sync.state)") }
        return found
    }

    private static func pushedSomething(_ state: AutomaticSync.State) -> Bool {
        if case .idle(let report?) = state { return report.acknowledged > 0 }
        return false
    }

    @Test("a write to an observed database reaches the server without a call to sync()")
    func syncsOnLocalChange() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let sync = AutomaticSync(
            replica: try Replica(database: database, transport: InProcessTransport(server: server, token: token)),
            interval: nil, debounce: .milliseconds(5))
        _ = try await firstState(of: sync) { if case .idle(_?) = $0 { true } else { false } }

        database.set("written", for: path)
        _ = try await firstState(of: sync, where: Self.pushedSomething)
        let stored = try await server.pull(PullRequest(after: 0, limit: 10), token: token).records
        #expect(stored.map(\.path) == [path])
        sync.stop()
        #expect(sync.state == .stopped(reason: nil))
    }

    @Test("the interval pulls what another replica pushed")
    func pullsOnInterval() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let database = InMemoryHistoryDatabase()
        let sync = AutomaticSync(
            replica: try Replica(database: database, transport: InProcessTransport(server: server, token: token)),
            interval: .milliseconds(20), debounce: .zero)

        let other = InMemoryHistoryDatabase()
        let otherReplica = try Replica(database: other, transport: InProcessTransport(server: server, token: token))
        other.set("from elsewhere", for: path)
        try await otherReplica.sync()

        _ = try await firstState(of: sync) { if case .idle(let report?) = $0 { report.pulled > 0 } else { false } }
        #expect(database.get(path) == "from elsewhere")
        sync.stop()
    }

    @Test("lost connections and 5xx are retried with growing waits until the push goes through")
    func retriesWithBackoff() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let transport = FailingTransport(
            base: InProcessTransport(server: server, token: token),
            failures: [
                URLError(.notConnectedToInternet),
                SyncTransportError.refused(status: 503, reason: "restarting"),
                SyncTransportError.refused(status: 429, reason: "slow down")
            ])
        let database = InMemoryHistoryDatabase()
        database.set("eventually", for: path)
        let policy = SyncRetryPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(25), jitter: 0)
        let sync = AutomaticSync(
            replica: try Replica(database: database, transport: transport), interval: nil, debounce: .zero, retry: policy)
        let seen = Locked<[AutomaticSync.State]>([])
        _ = try await firstState(of: sync) { state in
            seen.withLock { $0.append(state) }
            return Self.pushedSomething(state)
        }
        let retries = seen.withLock { $0 }.compactMap { state -> (Int, Duration, String)? in
            if case .retrying(let failures, let delay, let reason) = state { return (failures, delay, reason) }
            return nil
        }
        #expect(retries.map(\.0) == [1, 2, 3])
        #expect(retries.map(\.1) == [.milliseconds(10), .milliseconds(20), .milliseconds(25)])
        #expect(retries[1].2.contains("restarting"))
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.count == 1)
        sync.stop()
    }

    @Test("a 4xx stops it with the server's reason; the records stay pending")
    func stopsOnRefusal() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        _ = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let database = InMemoryHistoryDatabase()
            database.set("kept", for: path)
            let sync = AutomaticSync(
                replica: try Replica(database: database, transport: HTTPSyncTransport(server: url, token: "wrong")),
                interval: .milliseconds(10), debounce: .zero)
            let stopped = try await firstState(of: sync) { if case .stopped = $0 { true } else { false } }
            guard case .stopped(let reason?) = stopped else {
                Issue.record("stopped without a reason: \(stopped)")
                return
            }
            #expect(reason.contains("401"))
            #expect(reason.contains("The token belongs to no account"))
            // A stopped sync's stream ends at once; the replica's records are still pending.
            var states = sync.states.makeAsyncIterator()
            #expect(await states.next()?.state == stopped)
            #expect(await states.next() == nil)
            let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: "wrong"))
            #expect(replica.pendingRecords().count == 1)
        }
    }

    @Test("syncNow cuts a retry wait short")
    func syncNowRetriesAtOnce() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let transport = FailingTransport(base: InProcessTransport(server: server, token: token), failures: [URLError(.timedOut)])
        let database = InMemoryHistoryDatabase()
        database.set("soon", for: path)
        let policy = SyncRetryPolicy(initialDelay: .seconds(600), maximumDelay: .seconds(600), jitter: 0)
        let sync = AutomaticSync(
            replica: try Replica(database: database, transport: transport), interval: nil, debounce: .zero, retry: policy)
        let retrying = try await firstState(of: sync) { if case .retrying = $0 { true } else { false } }
        guard case .retrying(let failures, let delay, _) = retrying else { return }
        #expect(failures == 1)
        #expect(delay == .seconds(600))
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.isEmpty)
        // Without the cut the next try would come in 600 s: the state must come long before.
        let clock = ContinuousClock()
        let cut = clock.now
        sync.syncNow()
        let pushed = try await firstState(of: sync, within: .seconds(120), where: Self.pushedSomething)
        #expect(clock.now - cut < .seconds(120))
        guard case .idle(let report?) = pushed else { return }
        #expect(report.acknowledged == 1)
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.count == 1)
        sync.stop()
    }

    @Test("jitter takes a random part, up to its fraction, off each retry wait and never lengthens it")
    func jitterShortensWaits() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let failureCount = 24
        let transport = FailingTransport(
            base: InProcessTransport(server: server, token: token),
            failures: Array(repeating: URLError(.timedOut), count: failureCount))
        let database = InMemoryHistoryDatabase()
        database.set("after the storm", for: path)
        let jitter = 0.9
        let policy = SyncRetryPolicy(initialDelay: .milliseconds(4), maximumDelay: .milliseconds(8), jitter: jitter)
        let sync = AutomaticSync(
            replica: try Replica(database: database, transport: transport), interval: nil, debounce: .zero, retry: policy)
        let seen = Locked<[AutomaticSync.State]>([])
        _ = try await firstState(of: sync) { state in
            seen.withLock { $0.append(state) }
            return Self.pushedSomething(state)
        }
        sync.stop()
        let waits = seen.withLock { $0 }.compactMap { state -> (failures: Int, delay: Duration)? in
            if case .retrying(let failures, let delay, _) = state { return (failures, delay) }
            return nil
        }
        #expect(waits.map(\.failures) == Array(1 ... failureCount))
        for wait in waits {
            let longest = policy.delay(afterFailures: wait.failures)
            #expect(wait.delay <= longest, "wait \(wait.failures) lengthened to \(wait.delay)")
            #expect(wait.delay >= longest * (1 - jitter), "wait \(wait.failures) cut to \(wait.delay), below \(1 - jitter) of \(longest)")
        }
        // 24 uniform draws: all of them taking nothing off would mean jitter is not applied.
        #expect(waits.contains { $0.delay < policy.delay(afterFailures: $0.failures) }, "no wait was shortened")
        #expect(Set(waits.map(\.delay)).count > 2, "the waits do not vary: \(waits.map(\.delay))")
    }

    @Test("the retry policy doubles its wait up to the maximum")
    func retryPolicy() {
        let policy = SyncRetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), jitter: 0)
        #expect(
            (1 ... 6).map { policy.delay(afterFailures: $0) } == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)
            ])
        #expect(policy.delay(afterFailures: 10_000) == .seconds(1))
        #expect(SyncRetryPolicy(initialDelay: .seconds(5), maximumDelay: .seconds(1)).maximumDelay == .seconds(5))
    }

    @Test("which failures stop it: refusals of the request and undecodable records; not network or server failures")
    func stopReasons() {
        #expect(AutomaticSync.stopReason(for: SyncTransportError.refused(status: 400, reason: "bad")) != nil)
        #expect(AutomaticSync.stopReason(for: SyncTransportError.refused(status: 401, reason: "token")) != nil)
        #expect(AutomaticSync.stopReason(for: SyncTransportError.refused(status: 500, reason: "oops")) == nil)
        #expect(AutomaticSync.stopReason(for: SyncTransportError.invalidResponse("html")) == nil)
        #expect(AutomaticSync.stopReason(for: URLError(.cannotConnectToHost)) == nil)
        #expect(AutomaticSync.stopReason(for: ReplicaError.storageFailed("disk full")) == nil)
        #expect(
            AutomaticSync.stopReason(
                for: ReplicaError.undecodableRecord(
                    key: SyncRecord.Key(path: path, timestamp: Timestamp(time: 1, counter: 0, replica: 1)), reason: "?")) != nil)
    }
}

/// A transport to a real server that first fails with the given errors, one per request.
private final class FailingTransport: SyncTransport, @unchecked Sendable {
    private let base: any SyncTransport
    private let failures: Locked<[any Error]>

    init(base: any SyncTransport, failures: [any Error]) {
        self.base = base
        self.failures = Locked(failures)
    }

    private func failure() -> (any Error)? {
        failures.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    func push(_ request: PushRequest) async throws -> PushResponse {
        if let failure = failure() { throw failure }
        return try await base.push(request)
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        if let failure = failure() { throw failure }
        return try await base.pull(request)
    }
}
