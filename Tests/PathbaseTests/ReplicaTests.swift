import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("Replica: outbox, push and pull")
struct ReplicaTests {

    private func path(_ instance: Int, _ property: Int = 1) -> Path {
        Path(model: 2040, instance: instance, property: property)
    }

    private func keys(_ database: some HistoryDatabase) -> [SyncRecord.Key] {
        database.records().filter { $0.path.model == 2040 }.map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }
    }

    @Test("the replica id is stored in the database and survives reopening with another clock")
    func persistentId() throws {
        let file = SQLiteTestFiles.newPath()
        let transport = ReplicaTestTransport()
        let first = try SQLiteDatabase(path: file, options: .init(clock: HybridLogicalClock(replica: 11)))
        let id = try Replica(database: first, transport: transport).id
        first.set("written with clock 11", for: path(1))
        #expect(id == 11)

        let reopened = try SQLiteDatabase(path: file, options: .init(clock: HybridLogicalClock(replica: 12)))
        let replica = try Replica(database: reopened, transport: transport)
        #expect(replica.id == 11)
        // The record written with the earlier clock is still this replica's own, pending.
        let key = try #require(keys(reopened).first)
        #expect(replica.state(of: key) == .pending)
        #expect(replica.pendingRecords().map(\.key) == [key])
    }

    @Test("push sends pending records in bounded batches and acknowledges them; a second push sends nothing")
    func boundedPush() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = ReplicaTestTransport()
        let replica = try Replica(database: database, transport: transport, batchSize: 2)
        for instance in 1 ... 5 { database.set("v\(instance)", for: path(instance)) }
        #expect(replica.pendingRecords().count == 5)

        let report = try await replica.push()
        #expect(report.pushed == 5)
        #expect(report.acknowledged == 5)
        #expect(transport.pushRequestSizes == [2, 2, 1])
        #expect(replica.pendingRecords().isEmpty)
        for key in keys(database) { #expect(replica.state(of: key) == .acknowledged) }
        // The replica's own state records are never pushed.
        #expect(transport.records.allSatisfy { $0.path.model == 2040 })

        try await replica.push()
        #expect(transport.pushRequestSizes == [2, 2, 1])
    }

    @Test("records written by others are not the replica's: no outbox state")
    func foreignRecords() throws {
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: ReplicaTestTransport())
        database.set("theirs", for: path(1), timestamp: Timestamp(time: 5, counter: 0, replica: replica.id &+ 1))
        let key = try #require(keys(database).first)
        #expect(replica.state(of: key) == nil)
        #expect(replica.pendingRecords().isEmpty)
    }

    @Test("a lost push response leaves the records pending; the retry stores nothing twice")
    func lostResponse() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = ReplicaTestTransport()
        let replica = try Replica(database: database, transport: transport)
        database.set("a", for: path(1))
        database.set("b", for: path(2))
        transport.loseNextResponses(1)
        await #expect(throws: ReplicaTestTransport.LostResponse.self) { try await replica.push() }
        #expect(replica.pendingRecords().count == 2)

        try await replica.push()
        #expect(replica.pendingRecords().isEmpty)
        #expect(transport.records.count == 2)
    }

    @Test("the stand-in server refuses another value under a stored key, as SyncServer does (.conflicting), and acknowledges the same record again")
    func standInConflicts() async throws {
        let transport = ReplicaTestTransport()
        let timestamp = Timestamp(time: 10, counter: 0, replica: 5)
        let stored = try SyncRecord(Record(path: path(1), timestamp: timestamp, value: "first"))
        let other = try SyncRecord(Record(path: path(1), timestamp: timestamp, value: "other"))
        #expect(transport.store(stored))
        #expect(!transport.store(other))
        let again = try await transport.push(PushRequest(replica: 5, records: [stored]))
        #expect(again.acknowledged == [stored.key])
        #expect(again.rejected.isEmpty)
        let conflicting = try await transport.push(PushRequest(replica: 5, records: [other]))
        #expect(conflicting.acknowledged.isEmpty)
        #expect(conflicting.rejected.map(\.key) == [stored.key])
        #expect(conflicting.rejected.first?.reason.contains("another value with the same path and timestamp") == true)
        #expect(transport.records == [stored])
    }

    @Test("a rejected record is listed with the server's reason, and can be retried or discarded")
    func rejections() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = ReplicaTestTransport()
        let replica = try Replica(database: database, transport: transport)
        transport.reject { $0.path.instance == 2 ? "clock too far ahead" : nil }
        database.set("kept", for: path(1))
        database.set("refused", for: path(2))
        database.set("refused too", for: path(2, 2))
        database.set("kept too", for: path(3))

        let report = try await replica.push()
        #expect(report.acknowledged == 2)
        #expect(report.rejected == 2)
        let rejected = replica.rejectedRecords()
        #expect(rejected.map(\.key.path) == [path(2), path(2, 2)])
        #expect(rejected.allSatisfy { $0.state == .rejected(reason: "clock too far ahead") })
        #expect(replica.state(of: rejected[0].key) == .rejected(reason: "clock too far ahead"))
        #expect(replica.pendingRecords().isEmpty)
        #expect(!transport.records.contains { $0.path.instance == 2 })

        // Once the cause is gone, a retry sends the record unchanged.
        transport.reject { _ in nil }
        try replica.retry(rejected[0].key)
        #expect(replica.state(of: rejected[0].key) == .pending)
        #expect(replica.pendingRecords().map(\.key) == [rejected[0].key])
        try await replica.push()
        #expect(replica.state(of: rejected[0].key) == .acknowledged)
        #expect(transport.records.contains { $0.key == rejected[0].key })

        try replica.discard(rejected[1].key)
        #expect(replica.rejectedRecords().isEmpty)
        #expect(throws: ReplicaError.notRejected(rejected[1].key)) { try replica.discard(rejected[1].key) }
        try await replica.push()
        #expect(!transport.records.contains { $0.key == rejected[1].key })
    }

    @Test("pull applies others' records in pages, newest wins, and moves the clock past them")
    func pullPages() async throws {
        let database = InMemoryHistoryDatabase()
        let transport = ReplicaTestTransport()
        let replica = try Replica(database: database, transport: transport, pageSize: 2)
        database.set("local newer", for: path(1))
        let local = try #require(database.latestRecord(at: path(1)))
        let ahead = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000, counter: 0, replica: 99)
        transport.store(try SyncRecord(Record(path: path(1), timestamp: Timestamp(time: local.timestamp.time - 1, counter: 0, replica: 99), value: "remote older")))
        for instance in 2 ... 4 {
            transport.store(try SyncRecord(Record(path: path(instance), timestamp: Timestamp(time: local.timestamp.time + Int64(instance), counter: 0, replica: 99), value: "remote \(instance)")))
        }
        transport.store(try SyncRecord(Record(path: path(5), timestamp: ahead, value: "from the future")))

        let report = try await replica.pull()
        #expect(report.pulled == 5)
        #expect(report.cursor == 5)
        #expect(replica.pullCursor == 5)
        #expect(database.get(path(1)) == "local newer")
        #expect(database.get(path(3)) == "remote 3")
        #expect(database.get(path(5)) == "from the future")
        #expect(database.clock.now() > ahead)
        // Pulling again finds nothing new.
        #expect(try await replica.pull().pulled == 0)
    }

    @Test("observers of the database see pulled changes")
    func pulledChangesNotify() async throws {
        let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        let transport = ReplicaTestTransport()
        let replica = try Replica(database: ObservableDatabase(database), transport: transport)
        var changes = database.changes.makeAsyncIterator()
        transport.store(try SyncRecord(Record(path: path(7), timestamp: Timestamp(time: 10, counter: 0, replica: 99), value: "pulled")))
        try await replica.pull()
        let first = await changes.next()
        #expect(first == path(7))
    }

    @Test("a pulled page and its cursor are stored together: after a failure between pages, nothing is lost or applied twice")
    func pullCrashBetweenPages() async throws {
        let file = SQLiteTestFiles.newPath()
        let transport = ReplicaTestTransport()
        for instance in 1 ... 6 {
            transport.store(try SyncRecord(Record(path: path(instance), timestamp: Timestamp(time: Int64(instance), counter: 0, replica: 99), value: instance)))
        }
        transport.failPulls(after: [4])
        do {
            let database = try SQLiteDatabase(path: file)
            let replica = try Replica(database: database, transport: transport, pageSize: 2)
            await #expect(throws: ReplicaTestTransport.LostResponse.self) { try await replica.pull() }
            #expect(replica.pullCursor == 4)
        }
        transport.failPulls(after: [])
        let reopened = try SQLiteDatabase(path: file)
        let replica = try Replica(database: reopened, transport: transport, pageSize: 2)
        #expect(replica.pullCursor == 4)
        #expect(try await replica.pull().pulled == 2)
        #expect(keys(reopened).count == 6)
        for instance in 1 ... 6 { #expect(reopened.get(path(instance)) == instance) }
    }

    @Test("a database without history cannot be a replica")
    func historyRequired() {
        let error = #expect(throws: ReplicaError.self) { try Replica(database: InMemoryDatabase(), transport: ReplicaTestTransport()) }
        #expect(errorCase(of: error) == "historyRequired", "\(String(describing: error))")
    }
}
