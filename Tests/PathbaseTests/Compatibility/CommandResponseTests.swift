import Foundation
import Pathbase
import Testing

@Suite("StateModel compatibility: UpdateConsumer.encode(command:) and decode(commandResponse:)")
struct CommandResponseTests {

    @Test("A command encoded by the consumer runs on the other side; its answer decodes")
    func commandRoundTrip() throws {
        let local = InMemoryHistoryDatabase()
        let remote = InMemoryHistoryDatabase()
        let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let package = Package.create(in: local, id: 1, name: "curl")
        _ = Package.create(in: remote, id: 1, name: "curl")

        let request = try consumer.encode(command: package.installCommand(version: "8.0"))
        let response = producer.process(request: request)
        try consumer.decode(commandResponse: response)
        #expect(remote.get(id: 1, of: Package.self)?.installed == ["8.0"])
    }

    @Test("A failed command's answer throws the error reported by the other side")
    func failedCommand() throws {
        let local = InMemoryHistoryDatabase()
        let consumer = UpdateConsumer(database: local, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let producer = RequestProcessor(database: InMemoryHistoryDatabase(), encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let package = Package.create(in: local, id: 1, name: "curl")

        // The instance does not exist on the other side.
        let response = producer.process(request: try consumer.encode(command: package.installCommand(version: "8.0")))
        #expect(throws: SyncError.unknownInstance(model: Package.modelId, instance: 1)) {
            try consumer.decode(commandResponse: response)
        }
        // An update response is no command answer.
        let update = try producer.process(request: consumer.instanceStatusRequest(for: Package.self))
        expectSyncError("unexpectedMessage") { try consumer.decode(commandResponse: update) }
    }
}
