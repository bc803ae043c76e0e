import Foundation
import Pathbase
import Testing

/// Calls of StateModel's public API (commit 382dc47) that its own tests and README do not
/// show elsewhere in this folder, written as StateModel code writes them (issue 48).
@Suite("StateModel compatibility: the rest of the public API")
struct StateModelSurfaceTests {

    @available(*, deprecated)
    @Test("A history database's conveniences by date create, find, list and delete as of that date")
    func datedConveniences() throws {
        let database = InMemoryHistoryDatabase()
        let monday = Date(timeIntervalSince1970: 1_700_000_000)
        let tuesday = monday.addingTimeInterval(86_400)
        let wednesday = tuesday.addingTimeInterval(86_400)

        let ticket: Ticket = database.create(id: 1, at: monday)
        database.set("Login fails", model: Ticket.modelId, instance: 1, property: 1, at: monday)
        database.set("Login fails on iOS", model: Ticket.modelId, instance: 1, property: 1, at: wednesday)
        database.create(id: 2, at: tuesday, of: Ticket.self)

        let early: Timestamped<String>? = database.get(model: Ticket.modelId, instance: 1, property: 1, at: tuesday)
        #expect(early?.value == "Login fails")
        #expect(database.get(ticket.path(of: 1), at: nil, of: String.self)?.value == "Login fails on iOS")
        let newest: Timestamped<String>? = database.get(ticket.path(of: 1))
        #expect(newest?.value == "Login fails on iOS")
        let plain: String? = database.get(ticket.path(of: 1))
        #expect(plain == "Login fails on iOS")
        let dated = database.all(model: Ticket.modelId) { id, status, date in status == .created ? (id, date) : nil }
        #expect(Set(dated.map(\.0)) == [1, 2] && dated.first { $0.0 == 2 }?.1 == tuesday)
        let cached = CachedTimestampedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: 10, elementsToKeep: 5))
        let throughCache: Timestamped<String>? = cached.get(ticket.path(of: 1))
        #expect(throughCache?.value == "Login fails on iOS")

        #expect(database.all(at: monday, of: Ticket.self).map(\.id) == [1])
        #expect(Set(database.all(at: wednesday, of: Ticket.self).map(\.id)) == [1, 2])
        #expect(database.all(at: wednesday) { (ticket: Ticket) in ticket.id == 2 }.map(\.id) == [2])
        #expect(database.get(id: 2, at: monday, of: Ticket.self) == nil)
        #expect(database.get(id: 2, at: tuesday, of: Ticket.self)?.id == 2)

        database.delete(ticket, at: wednesday)
        #expect(database.active(id: 1, at: tuesday, of: Ticket.self)?.id == 1)
        #expect(database.active(id: 1, at: wednesday, of: Ticket.self) == nil)
        #expect(database.get(id: 1, at: wednesday, of: Ticket.self)?.status == .deleted)
        // Found as of Wednesday, so not created again.
        #expect(database.getOrCreate(id: 1, at: wednesday, of: Ticket.self).status == .deleted)
        #expect(database.getOrCreate(id: 3, at: wednesday, of: Ticket.self).status == .created)
    }

    @available(*, deprecated)
    @Test("Requests made with StateModel's initializers ask for what came after their date")
    func requestInitializers() throws {
        let (producerDatabase, _) = UnencodedSyncTests.databases()
        let processor = UnencodedRequestProcessor(database: producerDatabase, modelMap: ticketModelMap)
        let everything = try processor.process(instanceStatusRequest: InstanceStatusRequest(model: Ticket.modelId, timestamp: nil))
        #expect(Set(everything.records.map(\.path.instance)) == [1, 2])
        let later = Date().addingTimeInterval(60)
        #expect(try processor.process(instanceStatusRequest: InstanceStatusRequest(model: Ticket.modelId, timestamp: later)).records.isEmpty)
        let instance = try processor.process(instanceUpdateRequest: InstanceUpdateRequest(instance: 1, model: Ticket.modelId, timestamp: nil))
        #expect(instance.records.contains { $0.path.property == 1 })
        #expect(try processor.process(instanceUpdateRequest: InstanceUpdateRequest(instance: 1, model: Ticket.modelId, timestamp: later)).records.isEmpty)
    }
}
