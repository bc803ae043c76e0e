import Foundation
import Pathbase
import Testing

@Suite("StateModel compatibility: UnencodedRequestProcessor and UnencodedUpdateConsumer")
struct UnencodedSyncTests {

    /// A producer with two tickets, one assignee, and a consumer with nothing.
    static func databases() -> (producer: InMemoryHistoryDatabase, consumer: InMemoryHistoryDatabase) {
        let producer = InMemoryHistoryDatabase()
        let ada = Assignee.create(in: producer, id: 9, name: "Ada")
        let ticket = Ticket.create(in: producer, id: 1, title: "Login fails", estimate: 3, assignee: ada)
        ticket.watchers = [ada]
        Ticket.create(in: producer, id: 2, title: "Logout fails").delete()
        return (producer, InMemoryHistoryDatabase())
    }

    @Test("Instance statuses, an instance update and model updates pass as values")
    func valuesRoundTrip() throws {
        let (producerDatabase, consumerDatabase) = Self.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)

        let statusRequest: InstanceStatusRequest = try consumer.instanceStatusRequest(for: Ticket.self)
        let statuses: SyncResponse = try processor.process(instanceStatusRequest: statusRequest)
        let statusResult = try consumer.apply(instanceUpdates: statuses)
        #expect(Set(statusResult.instances) == [1, 2])
        #expect(consumerDatabase.get(id: 2, of: Ticket.self)?.status == .deleted)

        let instanceRequest = try consumer.instanceUpdateRequest(for: 1, of: Ticket.self)
        try consumer.apply(instanceUpdate: try processor.process(instanceUpdateRequest: instanceRequest))
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")

        for model in [Assignee.self, Ticket.self] as [any ModelProtocol.Type] {
            var page: SyncCursor? = nil
            var pages = 0
            repeat {
                let request = try Self.modelUpdateRequest(consumer, model, page: page)
                page = try consumer.apply(modelUpdate: try processor.process(modelUpdateRequest: request)).nextPage
                pages += 1
            } while page != nil && pages < 100
            #expect(pages > 1) // one record per page
        }
        let ticket = try #require(consumerDatabase.get(id: 1, of: Ticket.self))
        #expect(ticket.assignee?.name == "Ada")
        #expect(ticket.watchers.map(\.name) == ["Ada"])
        #expect(consumerDatabase.records().map(\.timestamp).sorted() == producerDatabase.records().map(\.timestamp).sorted())
    }

    static func modelUpdateRequest<Model: ModelProtocol>(_ consumer: UnencodedUpdateConsumer, _ model: Model.Type, page: SyncCursor?) throws -> ModelUpdateRequest {
        try consumer.modelUpdateRequest(for: model, limit: 1, startingAt: page)
    }

    @Test("The encoded processor and consumer send exactly what the unencoded ones make")
    func encodedAreBuiltOnUnencoded() throws {
        let (producerDatabase, consumerDatabase) = Self.databases()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let processor = RequestProcessor(database: producerDatabase, encoder: encoder, decoder: JSONDecoder(), modelMap: ticketModelMap)
        let consumer = UpdateConsumer(database: consumerDatabase, encoder: encoder, decoder: JSONDecoder(), modelMap: ticketModelMap)

        let request = try consumer.modelUpdateRequest(for: Ticket.self, limit: 100)
        let response = try processor.process(modelUpdateRequest: request)
        let unencodedRequest = try consumer.unencoded.modelUpdateRequest(for: Ticket.self, limit: 100)
        let unencodedResponse = try processor.unencoded.process(modelUpdateRequest: unencodedRequest)
        #expect(unencodedResponse.records.count == producerDatabase.records().filter { $0.path.model == Ticket.modelId }.count)
        #expect(try consumer.apply(modelUpdate: response).appliedRecords == unencodedResponse.records.count)
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.estimate == 3)
    }

    @Test("Responses built by callers with their own encoding are applied and checked")
    func ownTransport() throws {
        let consumerDatabase = InMemoryHistoryDatabase()
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)
        let stamp = Timestamp(time: 1_700_000_000_000_000, counter: 0, replica: 4)
        let records = [
            Record(path: .status(model: Ticket.modelId, instance: 3), timestamp: stamp, value: InstanceStatus.created),
            Record(path: Path(model: Ticket.modelId, instance: 3, property: Ticket.PropertyId.title), timestamp: stamp, value: "Decoded by the caller"),
            Record(path: Path(model: Ticket.modelId, instance: 3, property: 42), timestamp: stamp, value: "a property this model lacks")
        ]
        let result = try consumer.apply(instanceUpdate: SyncResponse(model: Ticket.modelId, instance: 3, records: records, cursor: nil))
        #expect(result.appliedRecords == 2)
        #expect(result.skippedRecords == 1)
        #expect(consumerDatabase.get(id: 3, of: Ticket.self)?.title == "Decoded by the caller")

        // A record of another instance: the whole response is refused, nothing is stored.
        let stray = Record(path: Path(model: Ticket.modelId, instance: 4, property: 1), timestamp: stamp, value: "stray")
        expectSyncError("malformedMessage") {
            _ = try consumer.apply(instanceUpdate: SyncResponse(model: Ticket.modelId, instance: 3, records: [records[1], stray], cursor: nil))
        }
        #expect(consumerDatabase.get(id: 4, of: Ticket.self) == nil)
    }

    @Test("Without a history database the processor and the consumer throw historyRequired")
    func historyRequired() throws {
        let processor = UnencodedRequestProcessor(database: InMemoryDatabase(), modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: InMemoryDatabase(), modelMap: ticketModelMap)
        expectSyncError("historyRequired") { _ = try processor.process(instanceStatusRequest: InstanceStatusRequest(model: Ticket.modelId)) }
        let response = SyncResponse(model: Ticket.modelId, records: [], cursor: nil)
        expectSyncError("historyRequired") { _ = try consumer.apply(modelUpdate: response) }
    }

    @available(*, deprecated)
    @Test("StateModel's names of the unencoded functions")
    func stateModelNames() throws {
        let (producerDatabase, consumerDatabase) = Self.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)
        let statuses = try processor.instanceStatusUpdates(for: try consumer.instanceStatusRequest(for: Ticket.self))
        try consumer.apply(instanceUpdates: statuses)
        let updates = try processor.allUpdates(for: try consumer.modelUpdateRequest(for: Ticket.self, limit: 100))
        let next = try consumer.apply(modelUpdates: updates)
        #expect(next == nil)
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")
    }
}
