import Foundation
import Pathbase
import Testing

@Suite("StateModel compatibility: CachedHistoryDatabase")
struct CachedHistoryDatabaseTests {

    @available(*, deprecated)
    @Test("CachedHistoryDatabase(wrapping:cache:) is a cached history database")
    func cachedHistory() {
        let base = InMemoryHistoryDatabase()
        let database = CachedHistoryDatabase(wrapping: base, cache: MaximumCountCache(maxCount: 100))
        let ticket = Ticket.create(in: database, id: 1, title: "Draft")
        let before = database.clock.now()
        ticket.title = "Final"

        #expect(ticket.title == "Final")
        let old: Timestamped<String>? = database.get(ticket.path(of: .title), at: before)
        #expect(old?.value == "Draft")
        #expect(database.history(of: ticket.path(of: .title), as: String.self).map(\.value) == ["Draft", "Final"])
        // The same type as Pathbase's own spelling: one wrapper, not a twin.
        let pathbaseSpelling: CachedDatabase<InMemoryHistoryDatabase> = database
        #expect(pathbaseSpelling === database)
    }

    @available(*, deprecated)
    @Test("Writes through it reach the wrapped database; its reads are cached")
    func writesReachTheBase() {
        let base = InMemoryHistoryDatabase()
        let database = CachedHistoryDatabase(wrapping: base, cache: MaximumCountCache(maxCount: 100))
        let ticket = Ticket.create(in: database, id: 2, title: "Cached")
        let fromBase: Ticket? = base.get(id: 2)
        #expect(fromBase?.title == "Cached")
        #expect(database.view(at: Date()).get(id: 2, of: Ticket.self)?.title == "Cached")
        _ = ticket
    }
}
