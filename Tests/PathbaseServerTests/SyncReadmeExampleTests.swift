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

@Suite("README: Sync engine")
struct SyncReadmeExampleTests {

    @Test("the Sync engine example runs as documented")
    func example() async throws {
        let serverFile = ServerTestFiles.newPath()
        let phoneFile = ServerTestFiles.newPath()

        // README "Sync engine", from here:
        let server = SyncServer(store: try SQLiteSyncServerStore(path: serverFile))
        let token = try server.addAccount(named: "alice")

        let phone = try SQLiteDatabase(path: phoneFile)
        let laptop = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let phoneReplica = try Replica(database: phone, transport: InProcessTransport(server: server, token: token))
        let laptopReplica = try Replica(database: laptop, transport: InProcessTransport(server: server, token: token))

        Person.create(in: phone, id: 1, name: "Alice")
        try await phoneReplica.sync()
        try await laptopReplica.sync()
        print(Person(database: laptop, id: 1).name)

        for entry in phoneReplica.rejectedRecords() {
            print(entry)
            try phoneReplica.retry(entry.key)
        }
        // to here.

        #expect(Person(database: laptop, id: 1).name == "Alice")
        #expect(phoneReplica.pendingRecords().isEmpty)
        #expect(phoneReplica.rejectedRecords().isEmpty)
    }
}
