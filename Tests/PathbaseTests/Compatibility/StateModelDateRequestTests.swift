import Foundation
import Pathbase
import Testing

/// StateModel's requests take `after: Date?` (its last sync date, `nil` before the first
/// sync); the same calls compile against Pathbase and ask for the same records (issue 48).
@Suite("StateModel compatibility: requests after a Date?")
struct StateModelDateRequestTests {

    @Test("The encoded consumer's instance requests take a Date? and skip what came before it")
    func encodedRequests() throws {
        let (producerDatabase, consumerDatabase) = UnencodedSyncTests.databases()
        let consumer = UpdateConsumer(database: consumerDatabase, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: ticketModelMap)
        let producer = RequestProcessor(database: producerDatabase, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: ticketModelMap)

        var lastSync: Date? = nil
        let statuses = try consumer.apply(instanceUpdates: try producer.process(instanceStatusRequest: try consumer.instanceStatusRequest(for: Ticket.self, after: lastSync)))
        #expect(Set(statuses.instances) == [1, 2])
        let update = try consumer.apply(instanceUpdate: try producer.process(instanceUpdateRequest: try consumer.instanceUpdateRequest(for: 1, of: Ticket.self, after: lastSync)))
        #expect(update.appliedRecords > 0)
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")

        // After a date past every record, nothing is new.
        lastSync = Date().addingTimeInterval(60)
        let none = try consumer.apply(instanceUpdates: try producer.process(instanceStatusRequest: try consumer.instanceStatusRequest(for: Ticket.self, after: lastSync)))
        #expect(none.instances.isEmpty)
        let noRecords = try consumer.apply(instanceUpdate: try producer.process(instanceUpdateRequest: try consumer.instanceUpdateRequest(for: 1, of: Ticket.self, after: lastSync)))
        #expect(noRecords.appliedRecords == 0)
    }

    @available(*, deprecated)
    @Test("The unencoded consumer and processor take a Date? too")
    func unencodedRequests() throws {
        let (producerDatabase, consumerDatabase) = UnencodedSyncTests.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)

        let lastSync: Date? = nil
        let request: InstanceStatusRequest = try consumer.instanceStatusRequest(for: Ticket.self, after: lastSync)
        #expect(request.after == nil)
        let statuses = try consumer.apply(instanceUpdates: try processor.instanceStatusUpdates(for: request))
        #expect(Set(statuses.instances) == [1, 2])
        // StateModel's processor-side shortcut answers the same as the request.
        #expect(try processor.instanceStatusUpdates(for: Ticket.self, after: lastSync).records.map(\.timestamp) == (try processor.process(instanceStatusRequest: request)).records.map(\.timestamp))

        let instanceRequest: InstanceUpdateRequest = try consumer.instanceUpdateRequest(for: 1, of: Ticket.self, after: lastSync)
        try consumer.apply(instanceUpdate: try processor.process(instanceUpdateRequest: instanceRequest))
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")

        let later: Date? = Date().addingTimeInterval(60)
        #expect(try consumer.instanceStatusRequest(for: Ticket.self, after: later).after != nil)
        #expect(try processor.instanceStatusUpdates(for: Ticket.self, after: later).records.isEmpty)
        #expect(try processor.process(instanceUpdateRequest: try consumer.instanceUpdateRequest(for: 1, of: Ticket.self, after: later)).records.isEmpty)
        // An unknown model is refused as by the cursor-based request.
        #expect(throws: SyncError.unknownModel(Unmapped.modelId)) { try consumer.instanceStatusRequest(for: Unmapped.self, after: lastSync) }
    }
}

@Model(id: 3710)
private final class Unmapped {
    @Property(id: 1)
    var name: String
}
