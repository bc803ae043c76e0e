import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

@Model(id: 1)
final class Person {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var age: Int = 18
}

@Suite("README: Sync with a server")
struct SyncReadmeExampleTests {

    @Test("the example syncs a model to a second replica through SyncHTTPServer")
    func example() async throws {
        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            // README "Sync with a server", from here (the file and the address adapted):
            let phone = try SQLiteDatabase(path: ServerTestFiles.newPath())
            let server = HTTPSyncTransport(server: url, token: token)
            let replica = try Replica(database: phone, transport: server)
            Person.create(in: phone, id: 1, name: "Alice")
            let report = try await replica.sync()
            for entry in replica.rejectedRecords() {
                print(entry)
                try replica.retry(entry.key)
            }
            // to here.
            #expect(report.acknowledged == report.pushed && report.pushed > 0)
            #expect(replica.rejectedRecords().isEmpty)

            let laptop = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
            try await Replica(database: laptop, transport: server).sync()
            #expect(Person(database: laptop, id: 1).name == "Alice")
        }
    }
}
