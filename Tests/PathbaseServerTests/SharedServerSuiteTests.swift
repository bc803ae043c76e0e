import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// The behaviour every server store owes, asked of each: in memory, SQLite and a real
/// PostgreSQL (started by `scripts/postgres`; without it the PostgreSQL cases fail).
@Suite("Server suite on every store: per-account logs, idempotent pushes, pages, isolation, several servers, concurrent pushers")
struct SharedServerSuiteTests {

    private func record(_ instance: Int, _ value: String, time: Int64 = 1, replica: UInt32 = 3) throws -> SyncRecord {
        try SyncRecord(Record(path: Path(model: 5, instance: instance, property: 1), timestamp: Timestamp(time: time, counter: 0, replica: replica), value: value))
    }

    private func record(at date: Date, value: String = "v") throws -> SyncRecord {
        try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(time: Int64(date.timeIntervalSince1970 * 1_000_000), counter: 0, replica: 4), value: value))
    }

    // MARK: The store

    @Test("appending numbers records from 1; appending again returns the same numbers and stores nothing", arguments: StoreKind.allCases)
    func idempotentAppend(kind: StoreKind) async throws {
        let store = try await kind.make()
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        let records = [try record(1, "x"), try record(2, "y")]
        #expect(try await store.append(records, to: account) == [.appended(sequence: 1), .appended(sequence: 2)])
        #expect(try await store.append(records.reversed(), to: account) == [.alreadyStored(sequence: 2), .alreadyStored(sequence: 1)])
        #expect(try await store.append([try record(1, "other value")], to: account) == [.conflicting])
        #expect(try await store.records(of: account, after: 0, limit: 10).map(\.record) == records)
    }

    @Test("a record twice in one append is stored once; a conflicting value beside it changes nothing", arguments: StoreKind.allCases)
    func duplicatesInOneAppend(kind: StoreKind) async throws {
        let store = try await kind.make()
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        let x = try record(1, "x")
        #expect(
            try await store.append([x, try record(2, "y"), x, try record(1, "z")], to: account)
                == [.appended(sequence: 1), .appended(sequence: 2), .alreadyStored(sequence: 1), .conflicting])
        #expect(try await store.records(of: account, after: 0, limit: 10).map(\.record) == [x, try record(2, "y")])
        #expect(try await store.append([], to: account) == [])
    }

    @Test("an account never sees another account's records", arguments: StoreKind.allCases)
    func storeNamespaces(kind: StoreKind) async throws {
        let store = try await kind.make()
        let alice = try await store.addAccount(name: "alice", tokenHash: [1])
        let bob = try await store.addAccount(name: "bob", tokenHash: [2])
        _ = try await store.append([try record(1, "alice's")], to: alice)
        #expect(try await store.records(of: bob, after: 0, limit: 10).isEmpty)
        // The same key in another account is a new record there, not a duplicate.
        #expect(try await store.append([try record(1, "bob's")], to: bob) == [.appended(sequence: 1)])
        #expect(try await store.records(of: alice, after: 0, limit: 10).map(\.record) == [try record(1, "alice's")])
        #expect(try await store.account(tokenHash: [2]) == bob)
        #expect(try await store.account(tokenHash: [3]) == nil)
        await #expect(throws: SyncServerError.accountExists("bob")) { try await store.addAccount(name: "bob", tokenHash: [4]) }
        await #expect(throws: SyncServerError.unknownAccount(AccountID(rawValue: 999))) {
            try await store.append([try record(1, "x")], to: AccountID(rawValue: 999))
        }
    }

    @Test("records come in pages after a sequence number", arguments: StoreKind.allCases)
    func pages(kind: StoreKind) async throws {
        let store = try await kind.make()
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        _ = try await store.append(try (1 ... 5).map { try record($0, "v\($0)") }, to: account)
        let page = try await store.records(of: account, after: 2, limit: 2)
        #expect(page.map(\.sequence) == [3, 4])
        #expect(page.map(\.record.path.instance) == [3, 4])
        #expect(try await store.records(of: account, after: 5, limit: 2).isEmpty)
        #expect(try await store.records(of: account, after: 0, limit: .max).count == 5)
    }

    @Test("values round-trip unchanged: large, Unicode and binary-looking JSON, extreme keys", arguments: StoreKind.allCases)
    func valuesRoundTrip(kind: StoreKind) async throws {
        let store = try await kind.make()
        let account = try await store.addAccount(name: "a", tokenHash: [1])
        let records = [
            try record(1, String(repeating: "long ", count: 20_000)),
            try record(2, "ünïcødé \u{0} 🎉 \"quoted\" \\ back"),
            SyncRecord(path: Path(model: .max, instance: .min, property: 7), timestamp: Timestamp(time: .max, counter: .max, replica: .max), valueType: "String", valueJSON: Data("\"x\"".utf8))
        ]
        _ = try await store.append(records, to: account)
        #expect(try await store.records(of: account, after: 0, limit: 10).map(\.record) == records)
    }

    // MARK: The server on the store

    @Test("accounts are separate namespaces: another token never reads or overwrites a record", arguments: StoreKind.allCases)
    func namespaces(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        let secret = try record(at: Date(), value: "alice's secret")
        _ = try await server.push(PushRequest(replica: 1, records: [secret]), token: alice)
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: bob).records.isEmpty)
        _ = try await server.push(PushRequest(replica: 2, records: [try record(at: Date(timeIntervalSince1970: secret.timestamp.date.timeIntervalSince1970), value: "bob's")]), token: bob)
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: alice).records == [secret])
    }

    @Test("a wrong or missing token is refused and changes nothing; a taken or invalid name is refused", arguments: StoreKind.allCases)
    func badTokens(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "alice")
        await #expect(throws: SyncServerError.unauthorized) { try await server.pull(PullRequest(after: 0, limit: 10), token: "wrong") }
        await #expect(throws: SyncServerError.unauthorized) { try await server.push(PushRequest(replica: 1, records: [try record(at: Date())]), token: token + "x") }
        await #expect(throws: SyncServerError.unauthorized) { try await server.push(PushRequest(replica: 1, records: []), token: "") }
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.isEmpty)
        await #expect(throws: SyncServerError.accountExists("alice")) { try await server.addAccount(named: "alice") }
        await #expect(throws: SyncServerError.invalidAccountName("")) { try await server.addAccount(named: "") }
    }

    @Test("a repeated push acknowledges again and stores nothing twice", arguments: StoreKind.allCases)
    func idempotentPush(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make())
        let token = try await server.addAccount(named: "alice")
        let records = try (0 ..< 5).map { try record(at: Date(timeIntervalSince1970: Double($0)), value: "v\($0)") }
        let first = try await server.push(PushRequest(replica: 4, records: records), token: token)
        let again = try await server.push(PushRequest(replica: 4, records: records.reversed()), token: token)
        #expect(first.acknowledged == records.map(\.key))
        #expect(Set(again.acknowledged) == Set(records.map(\.key)) && again.rejected.isEmpty)
        let page = try await server.pull(PullRequest(after: 0, limit: 100), token: token)
        #expect(page.records == records)
        #expect(page.cursor == 5 && !page.hasMore)
    }

    @Test("bad requests are refused with typed errors and change nothing; pages stop at the server's maximum", arguments: StoreKind.allCases)
    func badRequests(kind: StoreKind) async throws {
        let server = SyncServer(store: try await kind.make(), maximumPushSize: 2, maximumPageSize: 3)
        let token = try await server.addAccount(named: "alice")
        let records = try (0 ..< 3).map { try record(at: Date(timeIntervalSince1970: Double($0))) }
        await #expect(throws: SyncServerError.tooManyRecords(count: 3, maximum: 2)) { try await server.push(PushRequest(replica: 1, records: records), token: token) }
        await #expect(throws: SyncServerError.invalidPull(after: 0, limit: 0)) { try await server.pull(PullRequest(after: 0, limit: 0), token: token) }
        await #expect(throws: SyncServerError.invalidPull(after: -1, limit: 5)) { try await server.pull(PullRequest(after: -1, limit: 5), token: token) }
        let reserved = SyncRecord(path: Path(model: Replica.stateModel, instance: 1, property: 1), timestamp: Timestamp(time: 1), valueType: "Int", valueJSON: Data("1".utf8))
        #expect(try await server.push(PushRequest(replica: 1, records: [reserved]), token: token).rejected.count == 1)
        #expect(try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.isEmpty)
        for batch in [Array(records[0 ..< 2]), [records[2]], [try record(at: Date(timeIntervalSince1970: 9))]] {
            _ = try await server.push(PushRequest(replica: 1, records: batch), token: token)
        }
        let page = try await server.pull(PullRequest(after: 0, limit: 100), token: token)
        #expect(page.records.count == 3)
        #expect(page.cursor == 3)
        #expect(page.hasMore)
        let rest = try await server.pull(PullRequest(after: page.cursor, limit: 100), token: token)
        #expect(rest.records.count == 1 && rest.cursor == 4 && !rest.hasMore)
    }

    // MARK: Several servers on one database

    @Test("two servers on one database serve the same accounts: a record pushed to one is pulled from the other", arguments: StoreKind.persistent)
    func twoServers(kind: StoreKind) async throws {
        let stores = try await kind.makeShared(count: 2)
        let east = SyncServer(store: stores[0])
        let west = SyncServer(store: stores[1])
        let token = try await east.addAccount(named: "alice")
        await #expect(throws: SyncServerError.accountExists("alice")) { try await west.addAccount(named: "alice") }

        let phone = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: east, token: token))
        let laptop = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: west, token: token))
        phone.database.set("from the phone, through east", for: Path(model: 7, instance: 1, property: 1))
        try await phone.sync()
        #expect(try await laptop.sync().pulled == 1)
        #expect(laptop.database.get(Path(model: 7, instance: 1, property: 1)) == "from the phone, through east")

        laptop.database.set("from the laptop, through west", for: Path(model: 7, instance: 1, property: 2))
        try await laptop.sync()
        try await phone.sync()
        #expect(phone.database.get(Path(model: 7, instance: 1, property: 2)) == "from the laptop, through west")
        // The same push through the other server is acknowledged and stored once.
        let records = try await west.pull(PullRequest(after: 0, limit: 10), token: token).records
        #expect(try await east.push(PushRequest(replica: 9, records: records), token: token).acknowledged.count == 2)
        #expect(try await east.pull(PullRequest(after: 0, limit: 10), token: token).records == records)
    }

    /// Pushers on separate connections (separate stores on one database, as separate server
    /// processes) append to one account while a reader pulls page after page. A store that
    /// numbered records in one order and made them visible in another would let the reader
    /// move its cursor past a number committed later: that record would never reach it.
    @Test("concurrent pushers on separate connections never make a reader skip a record: it sees every record once, numbered 1, 2, 3 … in order", arguments: StoreKind.allCases)
    func concurrentPushersNeverSkip(kind: StoreKind) async throws {
        let pushers = 4, batches = 30, batchSize = 3
        let stores = try await kind.makeShared(count: pushers + 1)
        let token = try await SyncServer(store: stores[0]).addAccount(named: "busy")
        let expected = pushers * batches * batchSize
        let done = Locked(0)

        let pulled = try await withThrowingTaskGroup(of: [SequencedRecord].self) { group in
            for pusher in 0 ..< pushers {
                let server = SyncServer(store: stores[pusher])
                group.addTask {
                    // Counted also when a push throws, so that the reader stops.
                    defer { done.withLock { $0 += 1 } }
                    for batch in 0 ..< batches {
                        let records = try (0 ..< batchSize).map { index in
                            try record(batch * batchSize + index, "p\(pusher) b\(batch) r\(index)", time: Int64(batch + 1), replica: UInt32(pusher + 1))
                        }
                        let response = try await server.push(PushRequest(replica: UInt32(pusher + 1), records: records), token: token)
                        #expect(response.acknowledged.count == batchSize)
                    }
                    return []
                }
            }
            let reader = SyncServer(store: stores[pushers])
            group.addTask {
                var seen: [SequencedRecord] = []
                var cursor: Int64 = 0
                // Pulls until every pusher finished and a last pull found nothing new
                // (at most 2 minutes).
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    let finished = done.withLock { $0 } == pushers
                    let page = try await reader.pull(PullRequest(after: cursor, limit: 7), token: token)
                    for (offset, record) in page.records.enumerated() {
                        seen.append(SequencedRecord(sequence: cursor + Int64(offset) + 1, record: record))
                    }
                    #expect(page.cursor == cursor + Int64(page.records.count), "a page's cursor must be its last record's number")
                    cursor = page.cursor
                    if finished && page.records.isEmpty { break }
                    if page.records.isEmpty { await Task.yield() }
                }
                return seen
            }
            var all: [SequencedRecord] = []
            for try await part in group { all += part }
            return all
        }
        #expect(pulled.count == expected)
        #expect(Set(pulled.map(\.record.key)).count == expected)
        let stored = try await stores[0].records(of: AccountID(rawValue: 1), after: 0, limit: .max)
        #expect(stored.map(\.sequence) == Array(1 ... Int64(expected)))
        #expect(stored == pulled)
    }
}
