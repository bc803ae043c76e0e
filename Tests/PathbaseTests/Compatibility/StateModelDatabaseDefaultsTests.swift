import Foundation
import Pathbase
import Testing

/// StateModel's `Database+Default.swift` conveniences (commit 382dc47) as StateModel code
/// calls them, and how model handles compare (issue 61).
@Suite("StateModel compatibility: Database's typed reads and writes")
struct StateModelDatabaseDefaultsTests {

    @Test("get(_:of:) and set(_:for:of:) read and write a path as the named type, on any database")
    func typedPathAccess() throws {
        let databases: [any Database] = [InMemoryDatabase(), InMemoryHistoryDatabase()]
        for database in databases {
            let path = Path(model: Ticket.modelId, instance: 1, property: 2)
            database.set(3, for: path, of: Int.self)
            #expect(database.get(path, of: Int.self) == 3)
            #expect(database.get(path, of: String.self) == nil, "a value of another type reads as nil")
            // An optional written as the optional type, as StateModel code writes a nil.
            let title = Path(model: Ticket.modelId, instance: 1, property: 1)
            database.set(nil, for: title, of: String?.self)
            database.set("Login fails", for: title, of: String.self)
            #expect(database.get(title, of: String.self) == "Login fails")
        }
    }

    @Test("get(model:instance:property:of:) and set(_:model:instance:property:of:) address a path by its three ids")
    func threeIds() {
        let database = InMemoryDatabase()
        database.set("Draft", model: Ticket.modelId, instance: 4, property: 1)
        database.set(5, model: Ticket.modelId, instance: 4, property: 2, of: Int.self)
        let title: String? = database.get(model: Ticket.modelId, instance: 4, property: 1)
        #expect(title == "Draft")
        #expect(database.get(model: Ticket.modelId, instance: 4, property: 2, of: Int.self) == 5)
        let ticket = Ticket(database: database, id: 4)
        #expect(ticket.title == "Draft" && ticket.estimate == 5)
    }

    @Test("handles are equal by id and database (StateModel: id alone); compare ids with a.id == b.id")
    func equality() {
        let database = InMemoryHistoryDatabase()
        let live = Ticket.create(in: database, id: 1, title: "Draft")
        let again = Ticket(database: database, id: 1)
        #expect(live == again, "the same instance of the same database")
        #expect(Set([live, again]).count == 1)
        let past = database.view(at: Date()).get(id: 1, of: Ticket.self)
        #expect(past != nil)
        #expect(past.map { $0 == live } == false, "a handle of a view reads the past: another database")
        #expect(past?.id == live.id, "the way to compare instances across databases")
        let other = InMemoryDatabase()
        let copy = Ticket.create(in: other, id: 1, title: "Draft")
        #expect(copy != live && copy.id == live.id)
    }
}
