import Foundation
import Pathbase
import Testing

/// `Replica.pull()` asks for the next page while it stores one; these tests hold it to
/// storing pages in order, each with its cursor, and to leaving nothing running behind it.
@Suite("Replica: a pull asks for the next page while it stores one")
struct ReplicaPullPipelineTests {

    private func path(_ instance: Int) -> Path {
        Path(model: 2041, instance: instance, property: 1)
    }

    private func stored(_ instance: Int) throws -> SyncRecord {
        try SyncRecord(Record(path: path(instance), timestamp: Timestamp(time: Int64(instance), counter: 0, replica: 99), value: "remote \(instance)"))
    }

    @Test("a page that does not decode stops the pull after the pages before it, stored with their cursor; nothing after it is applied")
    func undecodablePageStops() async throws {
        let transport = ReplicaTestTransport()
        for instance in 1 ... 8 {
            // The fourth is an Int whose value is text: the second page does not decode.
            let undecodable = SyncRecord(path: path(4), timestamp: Timestamp(time: 4, counter: 0, replica: 99), valueType: "Int", valueJSON: Data(#""text""#.utf8))
            transport.store(instance == 4 ? undecodable : try stored(instance))
        }
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: transport, pageSize: 2)
        await #expect(throws: ReplicaError.self) { try await replica.pull() }
        #expect(replica.pullCursor == 2)
        #expect(database.get(path(1)) == "remote 1")
        #expect(database.get(path(2)) == "remote 2")
        for instance in 3 ... 8 { #expect(database.latestRecord(at: path(instance)) == nil, "instance \(instance)") }
    }

    @Test("pages are stored in the server's order with their cursors, as many requests as pages")
    func pagesInOrder() async throws {
        let transport = CountingTransport(ReplicaTestTransport())
        for instance in 1 ... 9 { transport.inner.store(try stored(instance)) }
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: transport, pageSize: 2)
        let report = try await replica.pull()
        #expect(report.pulled == 9)
        #expect(replica.pullCursor == 9)
        #expect(transport.requestedCursors == [0, 2, 4, 6, 8])
        for instance in 1 ... 9 { #expect(database.get(path(instance)) == "remote \(instance)") }
    }

    @Test("a cancelled pull returns only when the page it asked for meanwhile is no longer awaited: no request outlives it")
    func cancellationLeavesNothingBehind() async throws {
        let transport = CountingTransport(ReplicaTestTransport(), holdingPullsAfter: 0)
        for instance in 1 ... 6 { transport.inner.store(try stored(instance)) }
        let database = InMemoryHistoryDatabase()
        let pull = Task {
            let replica = try Replica(database: database, transport: transport, pageSize: 2)
            return try await replica.pull()
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while transport.requestedCursors.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(transport.requestedCursors == [0, 2])
        pull.cancel()
        let result = await pull.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(transport.inFlight == 0)
        // The first page was stored; the one asked for meanwhile was never answered.
        #expect(try Replica(database: database, transport: transport).pullCursor == 2)
        #expect(database.get(path(2)) == "remote 2")
        #expect(database.latestRecord(at: path(3)) == nil)
    }
}

/// A transport that notes the cursor of every pull and how many are under way; pulls after
/// `holdingPullsAfter` wait until cancelled.
private final class CountingTransport: SyncTransport, @unchecked Sendable {
    // @unchecked: `requested` and `running` are touched only while holding `lock`.

    let inner: ReplicaTestTransport
    private let held: Int64?
    private let lock = NSLock()
    private var requested: [Int64] = []
    private var running = 0

    init(_ inner: ReplicaTestTransport, holdingPullsAfter held: Int64? = nil) {
        self.inner = inner
        self.held = held
    }

    var requestedCursors: [Int64] { lock.withLock { requested } }
    var inFlight: Int { lock.withLock { running } }

    func push(_ request: PushRequest) async throws -> PushResponse {
        try await inner.push(request)
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        lock.withLock {
            requested.append(request.after)
            running += 1
        }
        defer { lock.withLock { running -= 1 } }
        if let held, request.after > held {
            try await Task.sleep(for: .seconds(30)) // a pull that is not cancelled fails the test after this
        }
        return try await inner.pull(request)
    }
}
