import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

@Suite("Sync over HTTP: tokens, bad payloads, replicas syncing through SyncHTTPServer")
struct SyncHTTPTests {

    private func record(_ instance: Int, _ value: String, replica: UInt32 = 4) throws -> SyncRecord {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return try SyncRecord(Record(path: Path(model: 6, instance: instance, property: 1), timestamp: Timestamp(time: now, counter: 0, replica: replica), value: value))
    }

    private func everything(_ server: SyncServer, _ token: String) async throws -> [SyncRecord] {
        try await server.pull(PullRequest(after: 0, limit: 1000), token: token).records
    }

    @Test("push and pull without a token or with a wrong one get 401 with a reason; a replica keeps its records pending")
    func wrongToken() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let push = try JSONEncoder().encode(PushRequest(replica: 1, records: [try record(1, "x")]))
            let pull = try JSONEncoder().encode(PullRequest(after: 0, limit: 10))
            for (endpoint, body) in [("v1/push", push), ("v1/pull", pull)] {
                for wrong in [nil, "wrong", token + "x", ""] {
                    let exchange = try await RawExchange.send(to: url, endpoint, token: wrong, body: body)
                    #expect(exchange.status == 401, "\(endpoint) with \(wrong ?? "no token")")
                    #expect(exchange.reason == "The token belongs to no account")
                }
            }
            #expect(try await everything(server, token).isEmpty)

            let database = InMemoryHistoryDatabase()
            let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: "not a token"))
            database.set("kept", for: Path(model: 6, instance: 1, property: 1))
            await #expect(throws: SyncTransportError.refused(status: 401, reason: "The token belongs to no account")) {
                try await replica.sync()
            }
            #expect(replica.pendingRecords().count == 1)
        }
    }

    @Test("malformed, oversized and invalid payloads get a 4xx with a reason, and nothing stored changes")
    func badPayloads() async throws {
        let server = SyncServer(store: InMemorySyncServerStore(), maximumPushSize: 5)
        let token = try await server.addAccount(named: "alice")
        let stored = try record(1, "stored")
        _ = try await server.push(PushRequest(replica: 4, records: [stored]), token: token)
        let good = try record(10, "good")
        try await withHTTPServer(server, maximumBodySize: 4096) { url in
            let cases: [(endpoint: String, body: String, status: Int, reason: String)] = [
                ("v1/push", "not json", 400, "The body is not a valid PushRequest"),
                ("v1/push", "{}", 400, "missing 'replica'"),
                ("v1/push", #"{"replica": 1, "records": [{"path": 5}]}"#, 400, "The body is not a valid PushRequest"),
                ("v1/push", #"{"replica": -1, "records": []}"#, 400, "The body is not a valid PushRequest"),
                ("v1/pull", #"{"after": 0}"#, 400, "missing 'limit'"),
                ("v1/pull", #"{"after": 0, "limit": 0}"#, 400, "the limit at least 1"),
                ("v1/pull", #"{"after": -3, "limit": 5}"#, 400, "the cursor must be at least 0"),
                ("v1/push", String(repeating: " ", count: 5000), 413, "larger than 4096 bytes")
            ]
            for bad in cases {
                let exchange = try await RawExchange.send(to: url, bad.endpoint, token: token, body: Data(bad.body.utf8))
                #expect(exchange.status == bad.status, "\(bad.endpoint) \(bad.body.prefix(40))")
                #expect(exchange.reason?.contains(bad.reason) == true, "\(exchange.reason ?? "no reason") should contain \(bad.reason)")
            }
            // Too many records: refused whole.
            let six = try (2 ... 7).map { try record($0, "v\($0)") }
            let tooMany = try await RawExchange.send(to: url, "v1/push", token: token, body: try JSONEncoder().encode(PushRequest(replica: 4, records: six)))
            #expect(tooMany.status == 413)
            #expect(tooMany.reason?.contains("at most 5") == true)
            // A record whose value does not match its type, or whose path no database writes:
            // refused one by one with a reason, the others stored.
            let wrongType = SyncRecord(path: Path(model: 6, instance: 8, property: 1), timestamp: stored.timestamp, valueType: "Int", valueJSON: Data(#""text""#.utf8))
            let badPath = SyncRecord(path: Path(model: 6, instance: 9, property: -1), timestamp: stored.timestamp, valueType: "Int", valueJSON: Data("1".utf8))
            let transport = HTTPSyncTransport(server: url, token: token)
            let response = try await transport.push(PushRequest(replica: 4, records: [wrongType, badPath, good]))
            #expect(response.acknowledged == [good.key])
            #expect(response.rejected.map(\.key) == [wrongType.key, badPath.key])
            #expect(response.rejected.allSatisfy { $0.reason.contains("is invalid") })
        }
        let after = try await everything(server, token)
        #expect(after.count == 2)
        #expect(after.first == stored)
        #expect(after.last?.key == good.key)
    }

    @Test("another account's token never reads or writes an account's records over HTTP")
    func namespaces() async throws {
        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        try await withHTTPServer(server) { url in
            let aliceDatabase = InMemoryHistoryDatabase()
            let aliceReplica = try Replica(database: aliceDatabase, transport: HTTPSyncTransport(server: url, token: alice))
            aliceDatabase.set("alice's secret", for: Path(model: 6, instance: 1, property: 1))
            try await aliceReplica.sync()

            let bobDatabase = InMemoryHistoryDatabase()
            let bobReplica = try Replica(database: bobDatabase, transport: HTTPSyncTransport(server: url, token: bob))
            bobDatabase.set("bob's", for: Path(model: 6, instance: 1, property: 1))
            let report = try await bobReplica.sync()
            #expect(report.pulled == 0)
            #expect(bobDatabase.get(Path(model: 6, instance: 1, property: 1)) == "bob's")
            // Bob's record, even pushed with Alice's exact key, lands in Bob's log only.
            let aliceRecord = try #require(try await everything(server, alice).first)
            let forged = SyncRecord(path: aliceRecord.path, timestamp: aliceRecord.timestamp, valueType: "String", valueJSON: Data(#""forged""#.utf8))
            let forgedPush = try await HTTPSyncTransport(server: url, token: bob).push(PushRequest(replica: 1, records: [forged]))
            #expect(forgedPush.acknowledged == [forged.key])
            try await aliceReplica.sync()
            #expect(aliceDatabase.get(Path(model: 6, instance: 1, property: 1)) == "alice's secret")
            #expect(try await everything(server, alice) == [aliceRecord])
        }
    }

    @Test("two SQLite replicas edit the same and different properties offline, sync over HTTP, and agree")
    func twoReplicas() async throws {
        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let phone = try SQLiteDatabase(path: ServerTestFiles.newPath())
            let laptop = try SQLiteDatabase(path: ServerTestFiles.newPath())
            let phoneReplica = try Replica(database: phone, transport: HTTPSyncTransport(server: url, token: token), batchSize: 3, pageSize: 2)
            let laptopReplica = try Replica(database: laptop, transport: HTTPSyncTransport(server: url, token: token), batchSize: 3, pageSize: 2)
            let title = Path(model: 7, instance: 1, property: 1)
            let count = Path(model: 7, instance: 1, property: 2)
            let note = Path(model: 7, instance: 2, property: 1)
            // Offline: both write the title (the laptop later), each something of its own.
            phone.set("phone's title", for: title)
            phone.set(3, for: count)
            laptop.set("laptop's note", for: note)
            laptop.set("laptop's title", for: title)
            for instance in 10 ..< 20 { phone.set("item \(instance)", for: Path(model: 7, instance: instance, property: 1)) }

            try await phoneReplica.sync()
            try await laptopReplica.sync()
            try await phoneReplica.sync()

            for path in [title, count, note] + (10 ..< 20).map({ Path(model: 7, instance: $0, property: 1) }) {
                #expect(try phone.latestRecord(at: path).map(SyncRecord.init) == laptop.latestRecord(at: path).map(SyncRecord.init), "\(path)")
            }
            #expect(phone.get(title) == "laptop's title")
            #expect(laptop.get(count) == 3)
            #expect(phone.get(note) == "laptop's note")
            #expect(phoneReplica.pendingRecords().isEmpty && laptopReplica.pendingRecords().isEmpty)
            #expect(try await everything(server, token).count == 14)
        }
    }
}
