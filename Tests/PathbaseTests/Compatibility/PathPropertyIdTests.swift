import Foundation
import Pathbase
import Testing

@Suite("StateModel compatibility: Path with a PropertyId case")
struct PathPropertyIdTests {

    @Test("Path(model:instance:property:) takes a case of the model's PropertyId")
    func propertyIdCase() {
        let path = Path(model: Ticket.modelId, instance: 7, property: Ticket.PropertyId.estimate)
        #expect(path == Path(model: Ticket.modelId, instance: 7, property: 2))
    }

    @Test("A value written at such a path is the model's property")
    func writesTheProperty() {
        let database = InMemoryDatabase()
        let ticket = Ticket.create(in: database, id: 7, title: "Login fails")
        database.set("Login fails on Linux", for: Path(model: Ticket.modelId, instance: 7, property: Ticket.PropertyId.title))
        #expect(ticket.title == "Login fails on Linux")
        let estimate: Int? = database.get(Path(model: Ticket.modelId, instance: 7, property: Ticket.PropertyId.estimate))
        #expect(estimate == 0) // create(in:id:…) stores every property
        ticket.estimate = 3
        let stored: Int? = database.get(Path(model: Ticket.modelId, instance: 7, property: Ticket.PropertyId.estimate))
        #expect(stored == 3)
    }
}
