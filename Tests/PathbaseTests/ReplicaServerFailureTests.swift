import Foundation
import Pathbase
import Testing

/// A server that fails (5xx) stored nothing: the replica's records must stay in its outbox,
/// or they would never reach the server (found by `scripts/mutants`, outbox-acknowledged-on-5xx).
@Suite("A replica over HTTP keeps its records pending when the server fails")
struct ReplicaServerFailureTests {

    @Test("a push answered 503 throws the server's reason and acknowledges nothing; the next push sends the record again")
    func serverFailureLeavesRecordsPending() async throws {
        let server = try #require(URL(string: "http://127.0.0.1:9"))
        let pushes = Locked(0)
        let failing = HTTPSyncTransport(
            server: server, token: "token",
            exchange: { request in
                if request.url?.lastPathComponent == "push" { pushes.withLock { $0 += 1 } }
                return (Data(#"{"reason":"the store is down"}"#.utf8), 503)
            })
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: failing)
        let path = Path(model: 2041, instance: 1, property: 1)
        database.set("unsent", for: path)
        let record = try #require(database.latestRecord(at: path))
        let key = SyncRecord.Key(path: path, timestamp: record.timestamp)

        await #expect(throws: SyncTransportError.refused(status: 503, reason: "the store is down")) {
            try await replica.push()
        }
        #expect(replica.state(of: key) == .pending)
        #expect(replica.pendingRecords().map(\.key) == [key])

        // Still failing: the record is sent again, not forgotten.
        await #expect(throws: SyncTransportError.refused(status: 503, reason: "the store is down")) {
            try await replica.push()
        }
        #expect(pushes.current == 2)
        #expect(replica.state(of: key) == .pending)
    }
}
