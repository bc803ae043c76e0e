import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("pathbase serve as a process: accounts, two replicas, kill -9 during a push")
struct ServeProcessTests {

    @Test("replicas sync through a real pathbase serve; killed during a push and restarted, nothing is lost or duplicated; SIGTERM stops it cleanly")
    func killDuringPush() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0)
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 43)

        var serve = try await ServeProcess(database: serverFile)
        let writerFile = ServerTestFiles.newPath()
        let writer = try SQLiteDatabase(path: writerFile)
        for instance in 1 ... 3000 {
            writer.set("value \(instance)", for: Path(model: 7, instance: instance, property: 1))
        }
        // Killed while the 11th batch of 100 is in flight: 10 batches acknowledged before.
        let killing = KillingTransport(
            base: HTTPSyncTransport(server: serve.url, token: token), killing: serve, duringPush: 11)
        let replica = try Replica(database: writer, transport: killing, batchSize: 100)
        do {
            try await replica.push()
            Issue.record("the push went through although the server was killed during it")
        } catch is ReplicaError {
            throw HTTPTestFailure("the replica failed, not the connection")
        } catch {
            // The connection broke when the server died: expected.
        }
        let acknowledgedBefore = writer.records().filter { $0.path.model == 7 }.count - replica.pendingRecords().count
        #expect(acknowledgedBefore >= 1000 && acknowledgedBefore < 3000, "the kill did not land mid-push: \(acknowledgedBefore) acknowledged")

        serve = try await ServeProcess(database: serverFile)
        let restarted = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token), batchSize: 100)
        try await restarted.sync()
        #expect(restarted.pendingRecords().isEmpty)

        let reader = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let readerReplica = try Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token), pageSize: 250)
        let report = try await readerReplica.sync()
        #expect(report.pulled == 3000, "acknowledged before the kill: \(acknowledgedBefore)")
        for instance in [1, 1500, 3000] {
            #expect(reader.get(Path(model: 7, instance: instance, property: 1)) == "value \(instance)")
        }
        // The command line: status of the writer, a one-time sync of a new file, a wrong token.
        let status = try await ServeProcess.run(["status", writerFile])
        #expect(status.status == 0)
        #expect(status.output.contains("pending: 0") && status.output.contains("rejected: 0"), "\(status.output)")
        let copyFile = ServerTestFiles.newPath()
        let synced = try await ServeProcess.run(["sync", copyFile, "--server", serve.url.absoluteString, "--token", token])
        #expect(synced.status == 0)
        #expect(synced.output.contains("pulled 3000, cursor 3000"), "\(synced.output)")
        // A token may start with '-' (base64url): it is still the option's value.
        let refused = try await ServeProcess.run(["sync", copyFile, "--server", serve.url.absoluteString, "--token", "-wrong"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("HTTP 401") && refused.errors.contains("The token belongs to no account"), "\(refused.errors)")

        #expect(await serve.stop() == 0)
        #expect(serve.output.contains("pathbase serve: stopped"))

        // The file holds every record once.
        let server = SyncServer(store: try SQLiteSyncServerStore(path: serverFile))
        let log = try await server.pull(PullRequest(after: 0, limit: 1000), token: token)
        #expect(log.cursor == 1000 && log.hasMore)
        let all = try await server.store.records(of: AccountID(rawValue: 1), after: 0, limit: 10_000)
        #expect(all.count == 3000)
        #expect(Set(all.map(\.record.key)).count == 3000)
    }
}
