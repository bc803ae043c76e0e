import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Model(id: 5150)
final class CompactedNote {
    @Property(id: 1)
    var text: String

    @Property(id: 2, merge: .counter)
    var views: Int
}

/// Issue 49's compaction as an operator runs it: `pathbase compact` on the store of a running
/// `pathbase serve`, and `pathbase serve --compact-every`.
@Suite("pathbase compact and serve --compact-every")
struct CompactCommandTests {

    /// A writer that wrote 20 notes 10 times each (text and an increment) through `serve`, and
    /// a replica that pulled after the first round only.
    private struct History {
        let writer = InMemoryHistoryDatabase()
        let early = InMemoryHistoryDatabase()
        let writerReplica: Replica
        let earlyReplica: Replica

        init(url: URL, token: String) async throws {
            writerReplica = try Replica(database: writer, transport: HTTPSyncTransport(server: url, token: token))
            earlyReplica = try Replica(database: early, transport: HTTPSyncTransport(server: url, token: token))
            for version in 1 ... 10 {
                for id in 1 ... 20 {
                    let note = version == 1 ? CompactedNote.create(in: writer, id: id, text: "v1") : CompactedNote(database: writer, id: id)
                    note.text = "v\(version)"
                    note.views += 1
                }
                try await writerReplica.sync()
                if version == 1 { try await earlyReplica.sync() }
            }
        }

        /// The notes' records the writer pushed (its replica bookkeeping stays local).
        var pushed: [Record] { writer.records().filter { $0.path.model == CompactedNote.modelId } }

        /// One record per path: what a new replica pulls from a log compacted through its end.
        var paths: Int { Set(pushed.map(\.path)).count }

        func expectCurrent(in database: any Database) {
            for id in 1 ... 20 {
                let note: CompactedNote? = database.get(id: id)
                #expect(note?.text == "v10")
                #expect(note?.views == 10)
            }
        }
    }

    private func newReplicaPull(url: URL, token: String) async throws -> (InMemoryHistoryDatabase, Int) {
        let database = InMemoryHistoryDatabase()
        let report = try await Replica(database: database, transport: HTTPSyncTransport(server: url, token: token)).sync()
        return (database, report.pulled)
    }

    @Test(
        "after pathbase compact a new replica pulls one record per path, holds the current values, and keeps converging with a replica whose cursor was before the horizon",
        arguments: [StoreKind.sqlite, .postgres])
    func compactCommand(kind: StoreKind) async throws {
        let store = try await kind.newStoreArguments()
        let token = try ServeProcess.addAccount("alice", store: store)
        let serve = try await ServeProcess(store: store)
        defer { serve.kill() }
        let history = try await History(url: serve.url, token: token)
        let (_, pulledBefore) = try await newReplicaPull(url: serve.url, token: token)
        #expect(pulledBefore == history.pushed.count)

        let compacted = try await ServeProcess.run(["compact"] + store + ["--keep-whole", "0"])
        #expect(compacted.status == 0, "\(compacted.errors)")
        #expect(compacted.output.contains("\(pulledBefore - history.paths) records removed from 1 account"), "\(compacted.output)")

        let (fresh, pulledAfter) = try await newReplicaPull(url: serve.url, token: token)
        #expect(pulledAfter == history.paths)
        history.expectCurrent(in: fresh)
        // The replica that pulled before the horizon catches up across it.
        try await history.earlyReplica.sync()
        history.expectCurrent(in: history.early)
        // Increments made after compaction, on two replicas, still add up everywhere.
        let freshReplica = try Replica(database: fresh, transport: HTTPSyncTransport(server: serve.url, token: token))
        CompactedNote(database: fresh, id: 1).views += 5
        CompactedNote(database: history.early, id: 1).views += 2
        for replica in [freshReplica, history.earlyReplica, history.writerReplica, freshReplica, history.earlyReplica] {
            try await replica.sync()
        }
        for database in [fresh, history.early, history.writer] {
            #expect((database.get(id: 1) as CompactedNote?)?.views == 17)
        }
    }

    @Test("serve --compact-every compacts on its own; bad values are refused before anything starts")
    func compactEvery() async throws {
        let store = try await StoreKind.sqlite.newStoreArguments()
        let token = try ServeProcess.addAccount("alice", store: store)
        let serve = try await ServeProcess(arguments: ["serve"] + store + ["--port", "0", "--compact-every", "0.2", "--keep-whole", "0"])
        defer { serve.kill() }
        let history = try await History(url: serve.url, token: token)
        var pulled = Int.max
        let deadline = ContinuousClock.now + .seconds(30)
        while pulled != history.paths, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            pulled = try await newReplicaPull(url: serve.url, token: token).1
        }
        #expect(pulled == history.paths)

        for bad in [["compact", "--keep-whole", "-1"], ["serve", "--compact-every", "0"], ["serve", "--compact-every", "nan"]] {
            let refused = try await ServeProcess.run(bad + store)
            #expect(refused.status != 0)
            #expect(refused.errors.contains(bad[1]), "\(refused.errors)")
        }
    }
}
