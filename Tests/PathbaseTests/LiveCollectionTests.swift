#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif
import Foundation
import Observation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("Codable collections: live results")
struct LiveCollectionTests {

    @Test(arguments: [false, true])
    func resultsFollowSavesFromAnyHandle(sqlite: Bool) throws {
        let database = try ObservableDatabase(wrapping: sqlite ? SQLiteDatabase() : InMemoryHistoryDatabase())
        let users = database.collection(CollectionUser.self)
        let everyone = makeUsers(count: 30, seed: 3)
        try users.save(everyone)
        let live = try users.live(where: \.age >= 18, sortedBy: [.ascending(\.name), .ascending(\.age)])
        #expect(live.isLive)
        let expected = { (all: [CollectionUser]) -> [CollectionUser] in
            all.filter { ($0.age ?? -1) >= 18 }
                .sorted { $0.id.collectionInstanceKey < $1.id.collectionInstanceKey }
                .sorted { ($0.name, $0.age ?? -1) < ($1.name, $1.age ?? -1) }
        }
        #expect(live.results == expected(everyone))

        // Observation sees a save through another handle.
        let changed = ObservedFireCount()
        withObservationTracking {
            _ = live.results
        } onChange: {
            changed.fire()
        }
        let other = database.collection(CollectionUser.self)
        let newcomer = CollectionUser(id: UUID(), name: "Aaron", age: 20, tags: [])
        try other.save(newcomer)
        #expect(changed.value == 1)
        #expect(live.results == expected(everyone + [newcomer]))

        // And as an ObservableObject.
        let willChange = ObservedFireCount()
        let subscription = live.objectWillChange.sink { willChange.fire() }

        // A change that moves one out; a deletion.
        var young = newcomer
        young.age = 10
        try other.save(young)
        #expect(!live.results.contains { $0.id == newcomer.id })
        let firstAdult = live.results[0]
        try other.delete(id: firstAdult.id)
        var now = everyone.filter { $0.id != firstAdult.id }
        now.append(young)
        #expect(live.results == expected(now))
        #expect(willChange.value == 2)
        subscription.cancel()
    }

    @Test
    func oneChangeIsAbsorbedWithoutAReFetch() throws {
        let counting = WriteCountingDatabase(wrapping: InMemoryHistoryDatabase())
        let database = ObservableDatabase(wrapping: counting)
        let users = database.collection(CollectionUser.self)
        let everyone = makeUsers(count: 30, seed: 4)
        try users.save(everyone)
        let live = try users.live(where: \.age >= 18, sortedBy: [.ascending(\.name), .ascending(\.age)])
        let scans = counting.scans
        var moved = everyone[0]
        moved.name = "Zoe"
        moved.age = 50
        try users.save(moved)
        try users.delete(id: everyone[1].id)
        // The struct each write touched was read again; the collection was not listed again.
        #expect(counting.scans == scans)
        let now = [moved] + everyone.dropFirst(2)
        let expected = now.filter { ($0.age ?? -1) >= 18 }
            .sorted { $0.id.collectionInstanceKey < $1.id.collectionInstanceKey }
            .sorted { ($0.name, $0.age ?? -1) < ($1.name, $1.age ?? -1) }
        #expect(live.results == expected)
    }

    @Test
    func resultsFollowASyncApply() throws {
        let producer = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let consumer = ObservableDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2)))
        let remote = producer.collection(CollectionUser.self)
        let local = consumer.collection(CollectionUser.self)
        let live = try local.live()
        #expect(live.results.isEmpty)
        let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: [])
        try remote.save(ada)
        let map: (ModelKey) -> (any ModelProtocol.Type)? = { $0 == local.modelKey ? CollectionSyncModel.self : nil }
        let updates = UpdateConsumer(database: consumer, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
        let processor = RequestProcessor(database: producer, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
        try updates.apply(modelUpdate: processor.process(request: updates.modelUpdateRequest(for: local, limit: 100)))
        #expect(live.results == [ada])
    }

    @Test
    func updatesArriveAsAnAsyncSequence() async throws {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let users = database.collection(CollectionUser.self)
        let live = try users.live(sortedBy: [.ascending(\.name)])
        var iterator = live.updates().makeAsyncIterator()
        #expect(await iterator.next() == [])
        let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: [])
        try users.save(ada)
        #expect(await iterator.next() == [ada])
    }
}
