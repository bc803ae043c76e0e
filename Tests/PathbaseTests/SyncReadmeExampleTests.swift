import Foundation
import Pathbase
import Testing

// The README's "Synchronization and commands" examples, compiled and checked with local
// names. Keep them in step with README.md. Model ids 2030–2039.

@Model(id: 2030)
private final class ReadmeSyncPerson {
    @Property(id: 1)
    var name: String
}

@Model(id: 2031)
private final class ReadmeSystemPackage {
    @Property(id: 1)
    var name: String

    @Property(id: 3)
    var installed: [String]

    @Command(id: 2)
    func install(version: String) {
        installed.append(version)
    }
}

@Suite("README: synchronization and commands")
struct SyncReadmeExampleTests {

    @Test("Statuses, then instance updates, then model updates page by page")
    func synchronization() throws {
        func mapIdToModel(modelId: Int) -> (any ModelProtocol.Type)? {
            switch modelId {
            case ReadmeSyncPerson.modelId: return ReadmeSyncPerson.self
            case ReadmeSystemPackage.modelId: return ReadmeSystemPackage.self
            default: return nil
            }
        }
        let local = InMemoryHistoryDatabase()
        let remote = InMemoryHistoryDatabase()
        for id in 1 ... 3 { _ = ReadmeSyncPerson.create(in: remote, id: id, name: "P\(id)") }
        var cursor: SyncCursor? = nil

        let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
        let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)

        // Which people are new or changed, then the values of each of them:
        let changed = try consumer.apply(instanceUpdates: producer.process(request: consumer.instanceStatusRequest(for: ReadmeSyncPerson.self, after: cursor)))
        for id in changed.instances {
            try consumer.apply(instanceUpdate: producer.process(request: consumer.instanceUpdateRequest(for: id, of: ReadmeSyncPerson.self, after: cursor)))
        }
        #expect(local.all(of: ReadmeSyncPerson.self).map(\.name).sorted() == ["P1", "P2", "P3"])

        remote.get(id: 2, of: ReadmeSyncPerson.self)?.name = "Renamed"
        // Or every update of a model, page by page:
        var page: SyncCursor? = nil
        repeat {
            let request = try consumer.modelUpdateRequest(for: ReadmeSyncPerson.self, after: cursor, limit: 500, startingAt: page)
            let result = try consumer.apply(modelUpdate: producer.process(request: request))
            page = result.nextPage
            if page == nil { cursor = result.cursor } // where the next synchronization starts
        } while page != nil
        #expect(local.get(id: 2, of: ReadmeSyncPerson.self)?.name == "Renamed")
        #expect(cursor != nil)
    }

    @Test("A command made on one side runs where the instance lives")
    func commands() throws {
        let database = InMemoryDatabase()
        _ = ReadmeSystemPackage.create(in: database, id: 1, name: "swift")
        let package = ReadmeSystemPackage(database: InMemoryDatabase(), id: 1)

        let data = try package.installCommand(version: "1.0.0").encoded(using: JSONEncoder())

        // Where the instance lives:
        let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
        try client.run(command: data)
        #expect(database.get(id: 1, of: ReadmeSystemPackage.self)?.installed == ["1.0.0"])

        // or through the same endpoint as synchronization requests:
        let producer = RequestProcessor(database: database, encoder: JSONEncoder(), decoder: JSONDecoder()) { _ in ReadmeSystemPackage.self }
        let response = producer.process(request: data)
        #expect(database.get(id: 1, of: ReadmeSystemPackage.self)?.installed == ["1.0.0", "1.0.0"])
        #expect(!response.isEmpty)
    }
}
