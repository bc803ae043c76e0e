import Foundation
import Pathbase
import Testing

/// StateModel's sync paging and encoding types compiled against Pathbase (issue 48).
@Suite("StateModel compatibility: paging by instance, updates(for:of:after:), sync types")
struct StateModelPagingTests {

    @available(*, deprecated)
    @Test("The README's paging loop runs to completion over 10 000 instances")
    func pagingLoop() throws {
        let remoteDB = InMemoryHistoryDatabase()
        for id in 1 ... 10_000 {
            Ticket.create(in: remoteDB, id: id, title: "Ticket \(id)", estimate: id)
        }
        let localDB = InMemoryHistoryDatabase()
        let consumer = UpdateConsumer(database: localDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: ticketModelMap)
        let producer = RequestProcessor(database: remoteDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: ticketModelMap)
        let lastSyncTime = Date(timeIntervalSince1970: 0)

        // As StateModel's README describes it: repeated requests until all updates are received.
        var next: InstanceKey? = nil
        var requests = 0
        repeat {
            let request = try consumer.modelUpdateRequest(for: Ticket.self, after: lastSyncTime, limit: 500, startingAt: next)
            let response = try producer.process(modelUpdateRequest: request)
            next = try consumer.apply(modelUpdates: response)
            requests += 1
        } while next != nil && requests < 1_000

        #expect(next == nil)
        let records = remoteDB.records().count
        #expect(records >= 30_000) // a status, a title and an estimate each, at least
        // Each page continued where the last ended: no page was asked for twice.
        #expect(requests >= records / 500 && requests <= records / 500 + 1)
        #expect(localDB.records().map(\.timestamp) == remoteDB.records().map(\.timestamp))
        let tickets = localDB.all(of: Ticket.self)
        #expect(tickets.count == 10_000)
        #expect(tickets.allSatisfy { $0.title == "Ticket \($0.id)" && $0.estimate == $0.id })
    }

    @available(*, deprecated)
    @Test("The unencoded consumer pages by instance too")
    func unencodedPaging() throws {
        let (producerDatabase, consumerDatabase) = UnencodedSyncTests.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)
        var next: InstanceKey? = nil
        var pages = 0
        repeat {
            let request = try consumer.modelUpdateRequest(for: Ticket.self, after: nil, limit: 1, startingAt: next)
            next = try consumer.apply(modelUpdates: try processor.process(modelUpdateRequest: request))
            pages += 1
        } while next != nil && pages < 100
        let ticketRecords = producerDatabase.records().filter { $0.path.model == Ticket.modelId }.count
        #expect(pages == ticketRecords) // one record a page, none asked for twice
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")
    }

    @available(*, deprecated)
    @Test("updates(for:of:after:) answers an instance's records without try; nothing for what it cannot answer")
    func instanceUpdates() {
        let (producerDatabase, consumerDatabase) = UnencodedSyncTests.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let update = processor.updates(for: 1, of: Ticket.self, after: nil)
        #expect(update.records.count == producerDatabase.records().filter { $0.path.model == Ticket.modelId && $0.path.instance == 1 }.count)
        let consumer = UnencodedUpdateConsumer(database: consumerDatabase, modelMap: ticketModelMap)
        #expect(throws: Never.self) { try consumer.apply(instanceUpdate: update) }
        #expect(consumerDatabase.get(id: 1, of: Ticket.self)?.title == "Login fails")

        #expect(processor.updates(for: 99, of: Ticket.self, after: nil).records.isEmpty)
        #expect(processor.updates(for: 1, of: 12_345, after: nil).records.isEmpty)
        #expect(processor.updates(for: 1, of: Ticket.self, after: Date().addingTimeInterval(60)).records.isEmpty)
    }

    @available(*, deprecated)
    @Test("CommandRequest and PropertyUpdate name Pathbase's command and record")
    func syncTypes() throws {
        let database = InMemoryHistoryDatabase()
        let note = Assignee.create(in: database, id: 1, name: "Ada")
        let update: PropertyUpdate = try #require(database.records(at: note.path(of: .name)).last)
        #expect(update.value as? String == "Ada")
        let command: CommandRequest = InstanceCommand(model: Ticket.modelId, instance: 1, command: 5, arguments: ["argument"])
        #expect(command.instance == 1)
    }
}
