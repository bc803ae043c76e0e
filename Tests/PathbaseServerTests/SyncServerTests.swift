import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

/// A clock the tests move by hand.
final class ManualClock: @unchecked Sendable {
    // @unchecked: `date` is only touched while holding `lock`.
    private let lock = NSLock()
    private var date = Date()
    var now: Date { lock.withLock { date } }
    func advance(by seconds: TimeInterval) { lock.withLock { date += seconds } }
}

@Suite("SyncServer: authentication, clock drift, replicas syncing through it")
struct SyncServerTests {

    private let path = Path(model: 6, instance: 1, property: 1)

    private func record(at date: Date, value: String = "v") throws -> SyncRecord {
        try SyncRecord(Record(path: path, timestamp: Timestamp(time: Int64(date.timeIntervalSince1970 * 1_000_000), counter: 0, replica: 4), value: value))
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("a stored token hash is the token's SHA-256, and tokens differ")
    func tokenHash() {
        #expect(hex(AccessToken.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let first = AccessToken.make()
        #expect(first != AccessToken.make())
        #expect(first.count == 43)
    }

    @Test("every request needs an account's token; the store keeps only its hash")
    func authentication() async throws {
        let file = ServerTestFiles.newPath()
        let server = SyncServer(store: try SQLiteSyncServerStore(path: file))
        let token = try await server.addAccount(named: "alice")
        await #expect(throws: SyncServerError.unauthorized) { try await server.pull(PullRequest(after: 0, limit: 10), token: "wrong") }
        await #expect(throws: SyncServerError.unauthorized) { try await server.push(PushRequest(replica: 1, records: []), token: token + "x") }
        _ = try await server.pull(PullRequest(after: 0, limit: 10), token: token)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file)) + ((try? Data(contentsOf: URL(fileURLWithPath: file + "-wal"))) ?? Data())
        #expect(bytes.range(of: Data(token.utf8)) == nil)
        await #expect(throws: SyncServerError.accountExists("alice")) { try await server.addAccount(named: "alice") }
        await #expect(throws: SyncServerError.invalidAccountName("")) { try await server.addAccount(named: "") }
    }

    @Test("a record more than the allowed drift ahead of the server's clock is rejected with a reason; the replica lists it and a retry succeeds once time caught up")
    func clockDrift() async throws {
        let clock = ManualClock()
        let server = SyncServer(store: InMemorySyncServerStore(), now: { clock.now })
        let token = try await server.addAccount(named: "alice")
        let inTime = try record(at: clock.now.addingTimeInterval(299))
        let ahead = try record(at: clock.now.addingTimeInterval(301))
        let response = try await server.push(PushRequest(replica: 4, records: [inTime, ahead]), token: token)
        #expect(response.acknowledged == [inTime.key])
        #expect(response.rejected.map(\.key) == [ahead.key])
        #expect(response.rejected.first?.reason.contains("ahead of the server's") == true)

        // The same through a replica whose clock runs 10 minutes fast.
        let fast = HybridLogicalClock(replica: 8)
        fast.receive(Timestamp(time: Int64(clock.now.addingTimeInterval(600).timeIntervalSince1970 * 1_000_000)))
        let replica = try Replica(database: InMemoryHistoryDatabase(clock: fast), transport: InProcessTransport(server: server, token: token))
        replica.database.set("from a fast clock", for: Path(model: 6, instance: 2, property: 1))
        let report = try await replica.sync()
        #expect(report.rejected == 1)
        let rejected = try #require(replica.rejectedRecords().first)
        guard case .rejected(let reason) = rejected.state else {
            Issue.record("not rejected")
            return
        }
        #expect(reason.contains("s ahead of the server's (at most 300 s allowed)"))

        clock.advance(by: 700)
        try replica.retry(rejected.key)
        try await replica.sync()
        #expect(replica.state(of: rejected.key) == .acknowledged)
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.contains { $0.key == rejected.key })
    }

    @Test("the drift limit is inclusive: a record exactly 300 s ahead is stored, one microsecond more is rejected")
    func clockDriftBoundary() async throws {
        // A whole second, so that the record's microseconds and the server's Date agree exactly.
        let serverTime = Date(timeIntervalSince1970: 1_800_000_000)
        let server = SyncServer(store: InMemorySyncServerStore(), now: { serverTime })
        #expect(server.maximumClockDrift == 300)
        let token = try await server.addAccount(named: "alice")
        let limit = Int64(serverTime.timeIntervalSince1970 + server.maximumClockDrift) * 1_000_000
        func record(_ time: Int64, instance: InstanceKey) throws -> SyncRecord {
            try SyncRecord(Record(path: Path(model: 6, instance: instance, property: 1), timestamp: Timestamp(time: time, counter: 0, replica: 4), value: "v"))
        }
        let atLimit = try record(limit, instance: 1)
        let pastLimit = try record(limit + 1, instance: 2)
        let response = try await server.push(PushRequest(replica: 4, records: [atLimit, pastLimit]), token: token)
        #expect(response.acknowledged == [atLimit.key])
        #expect(response.rejected.map(\.key) == [pastLimit.key])
        #expect(response.rejected.first?.reason.contains("(at most 300 s allowed)") == true, "\(response.rejected)")
    }

    @Test("a server given its models rejects records of other models with a reason the replica lists; the rest of the push is stored")
    func unknownModels() async throws {
        let server = SyncServer(store: InMemorySyncServerStore(), knownModels: [6])
        let token = try await server.addAccount(named: "alice")
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: InProcessTransport(server: server, token: token))
        database.set("known", for: path)
        let unknown = Path(model: 7, instance: 1, property: 1)
        database.set("unknown", for: unknown)
        let report = try await replica.sync()
        #expect(report.acknowledged == 1)
        #expect(report.rejected == 1)
        let rejected = try #require(replica.rejectedRecords().first)
        #expect(rejected.key.path == unknown)
        guard case .rejected(let reason) = rejected.state else {
            Issue.record("not rejected: \(rejected.state)")
            return
        }
        #expect(reason.contains("model 7"))
        #expect(reason.contains("not known to this server"))
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.map(\.path) == [path])
    }
    @Test("two replicas, one of them SQLite, sync models through the server and agree; the server restarts from its file")
    func twoReplicas() async throws {
        let serverFile = ServerTestFiles.newPath()
        var server = SyncServer(store: try SQLiteSyncServerStore(path: serverFile))
        let token = try await server.addAccount(named: "alice")
        let phone = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let laptop = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let phoneReplica = try Replica(database: phone, transport: InProcessTransport(server: server, token: token), batchSize: 2, pageSize: 2)

        phone.set("groceries", for: Path(model: 7, instance: 1, property: 1))
        phone.set(3, for: Path(model: 7, instance: 1, property: 2))
        try await phoneReplica.sync()

        server = SyncServer(store: try SQLiteSyncServerStore(path: serverFile)) // restarted
        let laptopReplica = try Replica(database: laptop, transport: InProcessTransport(server: server, token: token), pageSize: 1)
        let report = try await laptopReplica.sync()
        #expect(report.pulled == 2)
        #expect(laptop.get(Path(model: 7, instance: 1, property: 1)) == "groceries")

        laptop.set("groceries and milk", for: Path(model: 7, instance: 1, property: 1))
        try await laptopReplica.sync()
        let phoneAgain = try Replica(database: phone, transport: InProcessTransport(server: server, token: token))
        try await phoneAgain.sync()
        #expect(phone.get(Path(model: 7, instance: 1, property: 1)) == "groceries and milk")
        #expect(phone.get(Path(model: 7, instance: 1, property: 2)) == 3)
        #expect(phoneAgain.pendingRecords().isEmpty && laptopReplica.pendingRecords().isEmpty)
    }
}
