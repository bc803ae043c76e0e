import Pathbase
import PathbaseServer
import Testing

@Suite("What a read-only tool counts as pending is what the replica pushes")
struct ReplicaStateSummaryTests {

    @Test("imported records and a group of records sharing one timestamp across a page boundary: the summary, the status and pendingRecords() agree, and the push sends that many")
    func summaryCountsAsTheReplica() async throws {
        let database = InMemoryHistoryDatabase()
        // Another replica's records, imported before this file had a replica: pushed first.
        for instance in 1 ... 5 {
            database.set("imported \(instance)", for: Path(model: 7, instance: instance, property: 1), timestamp: Timestamp(time: 1_000 + Int64(instance), counter: 0, replica: 4242))
        }
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "summary")
        let replica = try Replica(database: database, transport: InProcessTransport(server: server, token: token))
        // 700 own records, each its own timestamp, then 600 sharing one: the group runs
        // past the 1000th record, where a scan paging by single records skipped the rest.
        for instance in 1 ... 700 {
            database.set(instance, for: Path(model: 8, instance: instance, property: 1), timestamp: Timestamp(time: 2_000 + Int64(instance), counter: 0, replica: replica.id))
        }
        for instance in 1 ... 600 {
            database.set(instance, for: Path(model: 9, instance: instance, property: 1), timestamp: Timestamp(time: 5_000, counter: 0, replica: replica.id))
        }
        let expected = 5 + 700 + 600
        #expect(replica.pendingRecords().count == expected)
        #expect(ReplicaStateSummary(of: database, pendingLimit: .max)?.pending == expected)
        #expect(ReplicaStateSummary(of: database, pendingLimit: 100)?.pending == 100)
        replica.refreshStatus()
        #expect(replica.status.pendingCount == expected)

        let report = try await replica.push()
        #expect(report.acknowledged == expected)
        #expect(replica.pendingRecords().isEmpty)
        #expect(ReplicaStateSummary(of: database, pendingLimit: .max)?.pending == 0)
    }
}
