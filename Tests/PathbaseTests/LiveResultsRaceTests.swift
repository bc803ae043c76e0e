import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 2300–2309.

@Model(id: 2300)
private final class RacedItem {
    @Property(id: 1) var rank: Int
}

private struct RacedRow: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var rank: Int
}

/// An in-memory database that can hold one read back: the read that returns `pausedValue`
/// waits, after reading, until the test releases it. So a test can let another write and
/// its update happen between a live result's read and its update.
private final class PausingDatabase: Database, @unchecked Sendable {
    // @unchecked: `pausedValue` is guarded by `lock`; the base is thread-safe.

    private let base = InMemoryDatabase()
    private let lock = NSLock()
    private var pausedValue: Int?
    /// Given when the paused read has read.
    let reached = Handoff<Bool>()
    /// Given by the test to let the paused read return.
    let released = Handoff<Bool>()

    /// Holds back the next read that returns `value`.
    func pause(atRead value: Int) {
        lock.withLock { pausedValue = value }
    }

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        let value: Value? = base.get(path)
        let pauses = lock.withLock {
            guard let paused = pausedValue, (value as? Int) == paused else { return false }
            pausedValue = nil
            return true
        }
        if pauses {
            reached.put(true)
            _ = released.take()
        }
        return value
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        base.set(value, for: path)
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        base.all(model: model, where: predicate)
    }
}

/// Live results are updated on the writing thread, after the write. When two threads write
/// the same instance, the update of the first may read before the second write and finish
/// after the second's update: the results must still end as the database is.
@Suite("Live results: several writing threads", .serialized)
struct LiveResultsRaceTests {

    @Test("A live query whose update read an older state than a later update ends as the database is")
    func liveQueryKeepsTheLaterUpdate() async throws {
        let base = PausingDatabase()
        let database = ObservableDatabase(wrapping: base)
        RacedItem.create(in: database, id: 1, rank: 0)
        let query = QueryDescriptor<RacedItem>(filter: { $0.rank < 100 }, sortBy: { $0.rank })
        let live = LiveQuery(query, in: database)
        base.pause(atRead: 50)
        let first = TestThread {
            let item: RacedItem = database.getOrCreate(id: 1)
            item.rank = 50 // its update reads 50, then waits
        }
        #expect(base.reached.take() == true, "the first update never read")
        let item: RacedItem = database.getOrCreate(id: 1)
        item.rank = 500 // out of the results, and its update is done
        base.released.put(true)
        #expect(await first.join())
        #expect(database.fetch(query).isEmpty)
        #expect(live.results.map(\.id) == [], "the earlier update's read won over the later one's")
    }

    @Test("A live collection whose update read an older state than a later update ends as the database is")
    func liveCollectionKeepsTheLaterUpdate() async throws {
        let base = PausingDatabase()
        let database = ObservableDatabase(wrapping: base)
        let rows = database.collection(RacedRow.self)
        try rows.save(RacedRow(id: 1, rank: 0))
        let live = try rows.live(where: \.rank < 1000, sortedBy: [.ascending(\.rank)])
        base.pause(atRead: 50)
        let first = TestThread {
            do { try rows.save(RacedRow(id: 1, rank: 50)) } catch { Issue.record(error) }
        }
        #expect(base.reached.take() == true, "the first update never read")
        try rows.save(RacedRow(id: 1, rank: 500))
        base.released.put(true)
        #expect(await first.join())
        #expect(try rows.fetch() == [RacedRow(id: 1, rank: 500)])
        #expect(live.results == [RacedRow(id: 1, rank: 500)], "the earlier update's read won over the later one's")
    }

    @Test("Live results equal a fetch after threads raced to write the same instances", arguments: [false, true])
    func racingWritersLeaveLiveResultsRight(collection: Bool) async throws {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let steps = try StressSettings.count("PATHBASE_LIVE_RACE_STEPS", default: 300)
        if collection {
            let rows = database.collection(RacedRow.self)
            try rows.save((0 ..< 4).map { RacedRow(id: $0, rank: $0) })
            let live = try rows.live(where: \.rank < 500, sortedBy: [.ascending(\.rank), .ascending(\.id)])
            let finished = await TestThread.run(count: 4) { thread in
                var generator = SplitMix64(seed: UInt64(thread + 1))
                for _ in 0 ..< steps {
                    try? rows.save(RacedRow(id: Int.random(in: 0 ..< 4, using: &generator), rank: Int.random(in: 0 ..< 1000, using: &generator)))
                }
            }
            #expect(finished)
            #expect(live.results == (try rows.fetch(where: \.rank < 500, sortedBy: [.ascending(\.rank), .ascending(\.id)])))
        } else {
            for id in 0 ..< 4 { RacedItem.create(in: database, id: id, rank: id) }
            let query = QueryDescriptor<RacedItem>(filter: { $0.rank < 500 }, sortBy: { $0.rank * 100 + $0.id })
            let live = LiveQuery(query, in: database)
            let finished = await TestThread.run(count: 4) { thread in
                var generator = SplitMix64(seed: UInt64(thread + 1))
                for _ in 0 ..< steps {
                    let item: RacedItem = database.getOrCreate(id: Int.random(in: 0 ..< 4, using: &generator))
                    item.rank = Int.random(in: 0 ..< 1000, using: &generator)
                }
            }
            #expect(finished)
            #expect(live.results.map(\.id) == database.fetch(query).map(\.id))
        }
    }
}
