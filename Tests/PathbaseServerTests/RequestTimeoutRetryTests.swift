import Foundation
import Hummingbird
import Logging
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import ServiceLifecycle
import Testing

/// README: "Lost connections, timeouts, HTTP 5xx/408/429 are retried with doubling waits";
/// `SyncTransportError.isRetryable`: "a timeout (408)". Over real HTTP: a server that
/// answers 408 (Request Timeout) to its first requests, then serves them.
@Suite("HTTP 408 from the server is retried")
struct RequestTimeoutRetryTests {

    /// Answers 408 with a JSON reason to the first `timeouts` requests, then lets them through.
    private struct TimingOut<Context: RequestContext>: RouterMiddleware {
        let timeouts: Locked<Int>

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let timesOut = timeouts.withLock { left in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
            guard timesOut else { return try await next(request, context) }
            return Response(
                status: .requestTimeout, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"reason":"the request took too long to arrive"}"#)))
        }
    }

    /// Runs `body` with the sync routes behind ``TimingOut`` on a free port of 127.0.0.1.
    private func withTimingOutServer(_ server: SyncServer, timeouts: Int, _ body: (URL) async throws -> Void) async throws {
        var logger = Logger(label: "pathbase.test.408")
        logger.logLevel = .warning
        let router = Router()
        router.middlewares.add(TimingOut(timeouts: Locked(timeouts)))
        SyncRoutes(server: server).register(on: router)
        let ports = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in ports.continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let group = ServiceGroup(services: [application], logger: logger)
        let running = Task { try await group.run() }
        var iterator = ports.stream.makeAsyncIterator()
        guard let port = await iterator.next(), let url = URL(string: "http://127.0.0.1:\(port)") else {
            running.cancel()
            throw HTTPTestFailure("the server did not start")
        }
        do {
            try await body(url)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("sync() throws refused(408), which is retryable and no reason to stop; AutomaticSync retries and the push goes through")
    func retried() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let path = Path(model: 6, instance: 1, property: 1)
        try await withTimingOutServer(server, timeouts: 3) { url in
            let database = InMemoryHistoryDatabase()
            database.set("after a timeout", for: path)
            let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
            let error = await #expect(throws: SyncTransportError.self) { try await replica.sync() }
            guard case .refused(408, let reason)? = error else {
                Issue.record("expected refused(408), got \(String(describing: error))")
                return
            }
            #expect(reason.contains("too long"))
            #expect(error?.isTransient == true)
            #expect(AutomaticSync.stopReason(for: error ?? SyncTransportError.invalidResponse("none")) == nil)

            // Two more 408s, then through.
            let sync = AutomaticSync(
                replica: replica, interval: nil, debounce: .zero,
                retry: SyncRetryPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(40), jitter: 0))
            let seen = Locked<[AutomaticSync.State]>([])
            let watching = Task {
                for await status in sync.states {
                    let state = status.state
                    seen.withLock { $0.append(state) }
                    if case .idle(let report?) = state, report.acknowledged > 0 { return }
                    if case .stopped = state { return }
                }
            }
            let deadline = Date().addingTimeInterval(120)
            while try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.isEmpty, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            sync.stop()
            await watching.value
            let states = seen.withLock { $0 }
            let retries = states.compactMap { state -> Int? in
                if case .retrying(let failures, _, let reason) = state, reason.contains("408") || reason.contains("too long") { return failures }
                return nil
            }
            #expect(retries == [1, 2], "\(states)")
            #expect(!states.contains { if case .stopped(_?) = $0 { true } else { false } }, "\(states)")
            #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.map(\.path) == [path])
        }
    }
}
