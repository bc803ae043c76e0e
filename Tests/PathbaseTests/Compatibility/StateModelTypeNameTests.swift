import Foundation
import Pathbase
import Testing

/// StateModel's type names and small functions compiled against Pathbase (issue 48).
@Suite("StateModel compatibility: type names")
struct StateModelTypeNameTests {

    /// Code as a StateModel user wrote it, with StateModel's type names.
    @available(*, deprecated)
    static func requestAllTickets(consumer: UpdateConsumer, producer: RequestProcessor) throws -> InstanceKey? {
        let request: ModelUpdateRequestData = try consumer.modelUpdateRequest(for: Ticket.self, after: nil, limit: 100, startingAt: nil)
        let response: ModelUpdateData = try producer.process(modelUpdateRequest: request)
        return try consumer.apply(modelUpdates: response)
    }

    @available(*, deprecated)
    @Test("Encoders, errors, data names and responses under StateModel's names")
    func names() throws {
        let (producerDatabase, consumerDatabase) = UnencodedSyncTests.databases()
        let encoder: any GenericEncoder = JSONEncoder()
        let decoder: any GenericDecoder = JSONDecoder()
        let consumer = UpdateConsumer(database: consumerDatabase, encoder: encoder, decoder: decoder, modelMap: ticketModelMap)
        let producer = RequestProcessor(database: producerDatabase, encoder: encoder, decoder: decoder, modelMap: ticketModelMap)
        #expect(try Self.requestAllTickets(consumer: consumer, producer: producer) == nil)
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")

        let unencoded = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let update: InstanceUpdate = unencoded.updates(for: 1, of: Ticket.self, after: nil)
        #expect(!update.records.isEmpty)

        do {
            _ = try consumer.modelUpdateRequest(for: Ticket.self, after: nil, limit: 0, startingAt: nil)
            Issue.record("a limit of 0 was accepted")
        } catch {
            #expect(error == .invalidLimit(0))
        }

        let timestamped: any TimestampedDatabase = InMemoryHistoryDatabase()
        let context: HistoryEditingContext = timestamped.createEditingContextWithCurrentState()
        #expect(context.all(of: Ticket.self).isEmpty)
        let draft = Ticket.create(in: consumerDatabase.createEditingContext(), id: 1, title: "Draft")
        #expect(consumerDatabase.resolve(draft)?.title == "Login fails")
    }
}
