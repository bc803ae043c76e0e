import Foundation
import Pathbase
import Testing

/// A history database written for StateModel, by date, used with Pathbase's history views,
/// undo, editing contexts and synchronization (issue 48).
@Suite("StateModel compatibility: a history database written by date")
struct DatedHistoryDatabaseTests {

    /// Lets the wall clock move on, so that writes before and after have different dates.
    static func passTime() {
        Thread.sleep(forTimeInterval: 0.002)
    }

    @available(*, deprecated)
    @Test("Models read and write through it, and its own date-based API sees their writes")
    func modelsReadAndWrite() throws {
        let database = DatedHistoryDatabase()
        let ada = Assignee.create(in: database, id: 9, name: "Ada")
        let ticket = Ticket.create(in: database, id: 1, title: "Login fails", estimate: 3, assignee: ada)
        ticket.estimate = 5
        #expect(database.get(id: 1, of: Ticket.self)?.estimate == 5)
        #expect(ticket.assignee?.name == "Ada")
        #expect(database.all(of: Ticket.self).map(\.id) == [1])

        let stored: Timestamped<Int>? = database.get(ticket.path(of: .estimate), at: nil as Date?)
        #expect(stored?.value == 5)
        let listed = database.all(model: Ticket.modelId, at: nil as Date?) { instance, status, date in (instance, status, date) }
        #expect(listed.map(\.0) == [1])
        #expect(listed.first?.1 == .created)
        #expect(try #require(listed.first?.2) <= Date())
    }

    @available(*, deprecated)
    @Test("A history view shows the state at an earlier date")
    func historyView() {
        let database = DatedHistoryDatabase()
        let ticket = Ticket.create(in: database, id: 1, title: "First")
        Self.passTime()
        let before = Date()
        Self.passTime()
        ticket.title = "Second"
        Ticket.create(in: database, id: 2, title: "Later")

        let past = database.view(at: before)
        #expect(past.get(id: 1, of: Ticket.self)?.title == "First")
        #expect(past.all(of: Ticket.self).map(\.id) == [1])
        #expect(database.all(of: Ticket.self).map(\.id) == [1, 2])
        #expect(ticket.title == "Second")
    }

    @available(*, deprecated)
    @Test("Undo takes back a change")
    func undo() {
        let base = DatedHistoryDatabase()
        let database = UndoableDatabase(wrapping: base)
        let ticket = Ticket.create(in: database, id: 1, title: "Draft")
        Self.passTime()
        ticket.title = "Final"
        #expect(database.undo())
        #expect(base.get(id: 1, of: Ticket.self)?.title == "Draft")
    }

    @available(*, deprecated)
    @Test("An editing context keeps its edits apart until they are committed")
    func editingContext() {
        let database = DatedHistoryDatabase()
        Ticket.create(in: database, id: 1, title: "Stored")
        Self.passTime()

        let context = database.createEditingContext()
        let draft: Ticket? = context.get(id: 1)
        draft?.title = "Edited"
        #expect(database.get(id: 1, of: Ticket.self)?.title == "Stored")
        context.commitChanges()
        #expect(database.get(id: 1, of: Ticket.self)?.title == "Edited")

        let discarded = database.createEditingContext()
        let other: Ticket? = discarded.get(id: 1)
        other?.title = "Thrown away"
        discarded.discardChanges()
        #expect(database.get(id: 1, of: Ticket.self)?.title == "Edited")
    }

    @available(*, deprecated)
    @Test("Synchronization into it and out of it")
    func sync() throws {
        // Into it: a Pathbase database answers, the date-based database consumes.
        let (producer, _) = UnencodedSyncTests.databases()
        let dated = DatedHistoryDatabase()
        try Self.syncAll(from: producer, to: dated)
        let ticket = try #require(dated.get(id: 1, of: Ticket.self))
        #expect(ticket.title == "Login fails")
        #expect(ticket.assignee?.name == "Ada")
        #expect(ticket.watchers.map(\.name) == ["Ada"])
        #expect(dated.get(id: 2, of: Ticket.self)?.status == .deleted)

        // Out of it: the date-based database answers with the newest value of each path.
        ticket.estimate = 8
        let copy = InMemoryHistoryDatabase()
        try Self.syncAll(from: dated, to: copy)
        let copied = try #require(copy.get(id: 1, of: Ticket.self))
        #expect(copied.title == "Login fails")
        #expect(copied.estimate == 8)
        #expect(copied.assignee?.name == "Ada")
        #expect(copy.get(id: 2, of: Ticket.self)?.status == .deleted)
    }

    /// Every model update of both test models, page by page.
    static func syncAll(from source: any Database, to target: any Database) throws {
        let processor = UnencodedRequestProcessor(database: source, modelMap: ticketModelMap)
        let consumer = UnencodedUpdateConsumer(database: target, modelMap: ticketModelMap)
        for model in [Assignee.self, Ticket.self] as [any ModelProtocol.Type] {
            var page: SyncCursor? = nil
            var pages = 0
            repeat {
                let request = try UnencodedSyncTests.modelUpdateRequest(consumer, model, page: page)
                page = try consumer.apply(modelUpdate: try processor.process(modelUpdateRequest: request)).nextPage
                pages += 1
            } while page != nil && pages < 100
            #expect(page == nil)
        }
    }

    @available(*, deprecated)
    @Test("Pathbase's databases answer StateModel's date-based calls")
    func pathbaseDatabasesByDate() throws {
        let database = InMemoryHistoryDatabase()
        let ticket = Ticket.create(in: database, id: 1, title: "First")
        Self.passTime()
        let before = Date()
        Self.passTime()
        ticket.title = "Second"
        let old: Timestamped<String>? = database.get(ticket.path(of: .title), at: before)
        #expect(old?.value == "First")
        #expect(try #require(old?.date) <= before)

        let written = Date(timeIntervalSince1970: 1_000)
        database.set("Backdated", for: ticket.path(of: .title), at: written)
        #expect(ticket.title == "Second") // older than the current value: kept in history only
        let backdated: Timestamped<String>? = database.get(ticket.path(of: .title), at: written)
        #expect(backdated?.value == "Backdated")
        #expect(backdated?.date == written)
        #expect(database.all(model: Ticket.modelId, at: before) { instance, status, _ in status == .created ? instance : nil } == [1])
    }
}
