import Foundation
import Pathbase
import Testing

/// A server that answers only some records of a push: the unanswered ones must stay in the
/// outbox, also when records after them were acknowledged (found by `scripts/mutants`,
/// outbox-watermark-passes-unanswered: the watermark moving past the whole scan).
@Suite("Replica: the outbox watermark stops before a record the server did not answer")
struct OutboxWatermarkTests {

    /// Stores and acknowledges every record, except that the first push leaves the records
    /// of `silencedInstance` unanswered (neither acknowledged nor rejected, as a server
    /// that dropped them would).
    private final class PartlySilentTransport: SyncTransport, @unchecked Sendable {
        // @unchecked: every mutable property is touched only while holding `lock`.
        private let lock = NSLock()
        private var log: [SyncRecord] = []
        private var pushes: [[SyncRecord.Key]] = []
        private let silencedInstance: InstanceKey

        init(silencing instance: InstanceKey) { silencedInstance = instance }

        var stored: [SyncRecord.Key] { lock.withLock { log.map(\.key) } }
        var pushedKeys: [[SyncRecord.Key]] { lock.withLock { pushes } }

        func push(_ request: PushRequest) async throws -> PushResponse {
            lock.withLock {
                let first = pushes.isEmpty
                pushes.append(request.records.map(\.key))
                var response = PushResponse(acknowledged: [])
                for record in request.records {
                    if first && record.key.path.instance == silencedInstance { continue }
                    if !log.contains(where: { $0.key == record.key }) { log.append(record) }
                    response.acknowledged.append(record.key)
                }
                return response
            }
        }

        func pull(_ request: PullRequest) async throws -> PullResponse {
            lock.withLock {
                let page = Array(log.dropFirst(Int(request.after)).prefix(request.limit))
                let cursor = request.after + Int64(page.count)
                return PullResponse(records: page, cursor: cursor, hasMore: cursor < Int64(log.count))
            }
        }
    }

    private func path(_ instance: Int) -> Path { Path(model: 2160, instance: instance, property: 1) }

    private func key(_ database: InMemoryHistoryDatabase, _ instance: Int) throws -> SyncRecord.Key {
        let record = try #require(database.latestRecord(at: path(instance)))
        return SyncRecord.Key(path: record.path, timestamp: record.timestamp)
    }

    @Test("a record left unanswered between acknowledged ones is sent again and reaches the server; it is never marked acknowledged before")
    func unansweredRecordIsSentAgain() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = PartlySilentTransport(silencing: 2)
        let replica = try Replica(database: database, transport: transport)
        for instance in 1 ... 3 { database.set("v\(instance)", for: path(instance)) }
        let keys = try (1 ... 3).map { try key(database, $0) }

        let report = try await replica.push()
        // The first push answered 1 and 3; the same push went on from the last record
        // before the silent one, so 2 (and 3 again, already stored) went out once more.
        let pushed = transport.pushedKeys
        #expect(pushed.first == keys, "the first push sends all three")
        #expect(pushed.count >= 2, "the unanswered record was not sent again: \(pushed)")
        #expect(pushed.dropFirst().first?.first == keys[1], "the second push starts at the unanswered record: \(pushed)")
        #expect(Set(transport.stored) == Set(keys), "every record reached the server")
        #expect(report.acknowledged >= 3)
        for key in keys { #expect(replica.state(of: key) == .acknowledged) }
        #expect(replica.pendingRecords().isEmpty)
    }

    @Test("while the server keeps a record unanswered, it stays pending and the ones before it are acknowledged")
    func unansweredRecordStaysPending() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = NeverAnswering(instance: 2)
        let replica = try Replica(database: database, transport: transport)
        for instance in 1 ... 3 { database.set("v\(instance)", for: path(instance)) }
        let keys = try (1 ... 3).map { try key(database, $0) }

        _ = try await replica.push()
        #expect(replica.state(of: keys[0]) == .acknowledged)
        #expect(replica.state(of: keys[1]) == .pending, "the watermark passed a record the server never answered")
        #expect(replica.pendingRecords().map(\.key).first == keys[1])

        // A new replica over the same database (a restart) still has it pending.
        let restarted = try Replica(database: database, transport: transport)
        #expect(restarted.state(of: keys[1]) == .pending)
    }

    /// Acknowledges every record except those of one instance, which it never answers.
    private struct NeverAnswering: SyncTransport {
        let instance: InstanceKey

        func push(_ request: PushRequest) async throws -> PushResponse {
            PushResponse(acknowledged: request.records.map(\.key).filter { $0.path.instance != instance })
        }

        func pull(_ request: PullRequest) async throws -> PullResponse {
            PullResponse(records: [], cursor: request.after, hasMore: false)
        }
    }
}
