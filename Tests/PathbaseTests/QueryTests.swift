import Observation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 2100–2119.

@Model(id: 2100)
private final class ChoreItem {
    @Property(id: 1) var title: String
    @Property(id: 2) var isDone: Bool
    @Property(id: 3) var rank: Int
}

@Suite("Queries and live queries")
struct QueryTests {

    private func fill(_ database: any Database) {
        for (id, title) in ["walk", "shop", "cook", "read", "swim"].enumerated() {
            ChoreItem.create(in: database, id: id, title: title, isDone: id % 2 == 1, rank: 10 - id)
        }
    }

    @Test("fetch filters, sorts and pages, on every database", arguments: DatabaseKind.allCases)
    func fetch(kind: DatabaseKind) {
        let database = kind.make()
        fill(database)
        ChoreItem.create(in: database, id: 9, title: "gone").delete()
        let open = QueryDescriptor<ChoreItem>(filter: { !$0.isDone }, sortBy: { $0.title })
        #expect(database.fetch(open).map(\.title) == ["cook", "swim", "walk"])
        let byRank = QueryDescriptor<ChoreItem>(sortBy: { $0.rank }, reverse: true, offset: 1, limit: 2)
        #expect(database.fetch(byRank).map(\.rank) == [9, 8])
        #expect(database.fetch(QueryDescriptor<ChoreItem>(offset: 10)).isEmpty)
        #expect(QueryDescriptor<ChoreItem>().id != QueryDescriptor<ChoreItem>().id)
    }

    @Test("A live query follows sets, creations, deletions and restores")
    func follows() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        fill(database)
        let open = LiveQuery(QueryDescriptor<ChoreItem>(filter: { !$0.isDone }, sortBy: { $0.title }), in: database)
        #expect(open.isLive)
        #expect(open.results.map(\.title) == ["cook", "swim", "walk"])

        database.get(id: 0, of: ChoreItem.self)?.isDone = true
        #expect(open.results.map(\.title) == ["cook", "swim"])
        ChoreItem.create(in: database, id: 7, title: "bake")
        #expect(open.results.map(\.title) == ["bake", "cook", "swim"])
        database.get(id: 2, of: ChoreItem.self)?.title = "zap"
        #expect(open.results.map(\.title) == ["bake", "swim", "zap"])
        let swim = database.get(id: 4, of: ChoreItem.self)
        swim?.delete()
        #expect(open.results.map(\.title) == ["bake", "zap"])
        swim?.insert()
        #expect(open.results.map(\.title) == ["bake", "swim", "zap"])
    }

    @Test("Reading results is tracked by withObservationTracking; other models do not fire it")
    func observation() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        fill(database)
        let open = LiveQuery(QueryDescriptor<ChoreItem>(filter: { !$0.isDone }), in: database)
        nonisolated(unsafe) var fired = 0
        withObservationTracking {
            _ = open.results
        } onChange: {
            fired += 1
        }
        database.set(5, for: Path(model: 2101, instance: 1, property: 1))
        database.get(id: 1, of: ChoreItem.self)?.rank = 99 // done: stays out, no change
        #expect(fired == 0)
        database.get(id: 1, of: ChoreItem.self)?.isDone = false
        #expect(fired == 1)
    }

    @Test("After random edits, a live query equals fetching again", arguments: [1, 2, 3])
    func randomEdits(seed: UInt64) {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        var generator = SplitMix64(seed: seed)
        for id in 0 ..< 40 {
            ChoreItem.create(in: database, id: id, title: "t\(id)", isDone: Bool.random(using: &generator), rank: id * 7 % 40)
        }
        // The id breaks ties, so that both sides must agree on one order.
        let query = QueryDescriptor<ChoreItem>(filter: { !$0.isDone }, sortBy: { $0.rank * 1_000 + $0.id }, offset: 2, limit: 10)
        let live = LiveQuery(query, in: database)
        for _ in 0 ..< 300 {
            let id = Int.random(in: 0 ..< 50, using: &generator)
            let chore: ChoreItem = database.getOrCreate(id: id)
            switch Int.random(in: 0 ..< 4, using: &generator) {
            case 0: chore.isDone.toggle()
            case 1: chore.rank = Int.random(in: 0 ..< 1000, using: &generator)
            case 2: chore.delete()
            default: chore.insert()
            }
            #expect(live.results.map(\.id) == database.fetch(query).map(\.id))
        }
    }

    @Test("On a database that is not observed, a live query keeps its first results")
    func notObserved() {
        let database = InMemoryDatabase()
        fill(database)
        let query = LiveQuery(QueryDescriptor<ChoreItem>(filter: { !$0.isDone }), in: database)
        #expect(!query.isLive)
        #expect(query.results.count == 3)
    }
}
