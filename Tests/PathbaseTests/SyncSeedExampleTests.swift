import Foundation
import Pathbase
import Testing

// The documented synchronization and command samples, compiled and checked with our names.
// Model ids 2020–2029.

@Model(id: 2020)
final class SeedModel {
    @Property(id: 1)
    var value: String
}

@Model(id: 2021)
final class SystemPackage {
    @Property(id: 1)
    var name: String

    @Property(id: 3)
    var installedVersion: String?

    @Command(id: 2)
    func install(version: String) {
        // Install the specified version of the package
        installedVersion = version
    }
}

/// Provide the consumer and producer with the types for each model
func mapIdToModel(modelId: Int) -> (any ModelProtocol.Type)? {
    switch modelId {
    case 2020: return SeedModel.self
    case 2021: return SystemPackage.self
    default: return nil
    }
}

@Suite("Documented examples: synchronization and commands")
struct SyncSeedExampleTests {

    @Test("Synchronization: instance statuses, then one instance's properties, then all updates of a model")
    func synchronization() throws {
        let remoteContents = InMemoryHistoryDatabase()
        let model = SeedModel.create(in: remoteContents, id: 1, value: "remote")
        _ = SeedModel.create(in: remoteContents, id: 2, value: "second")

        // Local client
        let localDB: any Database = InMemoryHistoryDatabase()
        let consumer = UpdateConsumer(database: localDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)

        // Remote client
        let remoteDB: any Database = remoteContents
        let producer = RequestProcessor(database: remoteDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)

        let lastSyncTime = Date(timeIntervalSince1970: 0)

        // Prepare a request for changes instances on the client
        let request = try consumer.instanceStatusRequest(for: SeedModel.self, after: lastSyncTime)

        // Process the request on the server
        let response = try producer.process(instanceStatusRequest: request)

        // Process the response on the client
        try consumer.apply(instanceUpdates: response)
        #expect(localDB.all(of: SeedModel.self).count == 2)

        // Property updates for a specific instance
        let instanceId: Int = model.id
        let instanceRequest = try consumer.instanceUpdateRequest(for: instanceId, of: SeedModel.self, after: lastSyncTime)
        let instanceResponse = try producer.process(instanceUpdateRequest: instanceRequest)
        try consumer.apply(instanceUpdate: instanceResponse)
        #expect(localDB.get(id: 1, of: SeedModel.self)?.value == "remote")

        // All updates of a model, requested repeatedly until all arrived
        var page: SyncCursor? = nil
        repeat {
            let modelRequest = try consumer.modelUpdateRequest(for: SeedModel.self, after: lastSyncTime, limit: 2, startingAt: page)
            let modelResponse = try producer.process(modelUpdateRequest: modelRequest)
            page = try consumer.apply(modelUpdate: modelResponse).nextPage
        } while page != nil
        #expect(localDB.get(id: 2, of: SeedModel.self)?.value == "second")
    }

    @Test("Instance commands: create a command on the client, run it on the remote")
    func instanceCommands() throws {
        let database: any Database = InMemoryDatabase()
        _ = SystemPackage.create(in: database, id: 1, name: "swift")
        let clientDatabase = InMemoryDatabase()

        let instance: SystemPackage = clientDatabase.create(id: 1)
        let command = instance.installCommand(version: "1.0.0")
        let commandData = try command.encoded(using: JSONEncoder())

        let client = StateClient(database: database, encoder: JSONEncoder(), decoder: JSONDecoder())
        try client.run(command: commandData)

        #expect(database.get(id: 1, of: SystemPackage.self)?.installedVersion == "1.0.0")
        #expect(instance.installedVersion == nil)
    }
}
