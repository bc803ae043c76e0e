import Foundation
import Pathbase
import Testing

/// "After" cursors never skip an update: writes within one millisecond, records that share
/// a timestamp, and a producer whose clock is behind; and paging boundaries.
@Suite("Sync: cursors and paging")
struct SyncCursorTests {

    private let title = SyncItem.PropertyId.title.rawValue

    private func path(_ instance: InstanceKey, _ property: PropertyKey = SyncItem.PropertyId.title.rawValue) -> Path {
        Path(model: SyncItem.modelId, instance: instance, property: property)
    }

    @Test("Two writes within one millisecond: the second is not skipped by the next request", arguments: SyncCoding.allCases)
    func sameMillisecond(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let producer = pair.producerDatabase
        producer.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: 1), timestamp: stamp(1_000))
        producer.set("one", for: path(1), timestamp: stamp(1_100))
        let first = try pair.pullModel(SyncItem.self)
        // 300 µs later, same millisecond; then the same microsecond with a higher counter.
        producer.set("two", for: path(1), timestamp: stamp(1_400))
        producer.set(5, for: path(1, SyncItem.PropertyId.count.rawValue), timestamp: stamp(1_400, counter: 1))

        let second = try pair.pullModel(SyncItem.self, after: first.last?.cursor)
        #expect(second.map(\.appliedRecords) == [2])
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.title == "two")
        #expect(item.count == 5)
    }

    @Test("Requests after a Date include the boundary again, so same-millisecond writes are not skipped", arguments: SyncCoding.allCases)
    func dateCursor(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let producer = pair.producerDatabase
        producer.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: 1), timestamp: stamp(1_000))
        producer.set("one", for: path(1), timestamp: stamp(1_100))
        let request = try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self, after: Date(timeIntervalSince1970: 0))
        let first = try pair.consumer.apply(instanceUpdate: try pair.producer.process(instanceUpdateRequest: request))
        let lastSync = try #require(first.lastUpdate)
        producer.set("two", for: path(1), timestamp: stamp(1_100, counter: 1)) // same microsecond

        let again = try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self, after: lastSync)
        let second = try pair.consumer.apply(instanceUpdate: try pair.producer.process(instanceUpdateRequest: again))
        #expect(second.appliedRecords == 2) // "one" again (changes nothing) and "two"
        #expect(pair.consumerDatabase.get(id: 1, of: SyncItem.self)?.title == "two")
        #expect(snapshot(pair.consumerDatabase) == snapshot(producer))
    }

    @Test("Records sharing one timestamp on several paths are all delivered, also one per page", arguments: [1, 2, 3, 100])
    func sharedTimestamp(limit: Int) throws {
        let pair = SyncPair()
        let producer = pair.producerDatabase
        for instance in 1 ... 3 {
            producer.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: instance), timestamp: stamp(10))
            producer.set("t\(instance)", for: path(instance), timestamp: stamp(10))
        }
        let results = try pair.pullModel(SyncItem.self, limit: limit)
        #expect(results.reduce(0) { $0 + $1.appliedRecords } == 6)
        #expect(snapshot(pair.consumerDatabase) == snapshot(producer))
    }

    @Test("Hundreds of other records sharing the cursor's timestamp do not hide the next update")
    func crowdedTimestamp() throws {
        let pair = SyncPair()
        let producer = pair.producerDatabase
        // Model 1999 orders before SyncItem's 2000 at the same timestamp.
        for instance in 0 ..< 300 {
            producer.set(instance, for: Path(model: 1999, instance: instance, property: 1), timestamp: stamp(7))
        }
        producer.set("first", for: path(1), timestamp: stamp(7))
        producer.set("second", for: path(2), timestamp: stamp(7))
        for instance in 300 ..< 600 {
            producer.set(instance, for: Path(model: 1999, instance: instance, property: 1), timestamp: stamp(8))
        }
        producer.set("third", for: path(3), timestamp: stamp(8))
        let results = try pair.pullModel(SyncItem.self, limit: 1)
        #expect(results.map(\.appliedRecords) == [1, 1, 1])
        #expect(snapshot(pair.consumerDatabase) == snapshot(producer, model: SyncItem.modelId))
    }

    @Test("A producer whose clock is an hour behind the consumer's: no update is missed", arguments: SyncCoding.allCases)
    func laggingProducerClock(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let hourAgo = Int64(Date().timeIntervalSince1970 * 1_000_000) - 3_600_000_000
        let lagging = { (offset: Int64) in Timestamp(time: hourAgo + offset, counter: 0, replica: 2) }
        let producer = pair.producerDatabase
        producer.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: 1), timestamp: lagging(0))
        producer.set("before", for: path(1), timestamp: lagging(1))

        let first = try pair.pullModel(SyncItem.self)
        let consumerNow = Date() // what a consumer using its own clock would remember
        producer.set("after", for: path(1), timestamp: lagging(2))

        // The producer's cursor finds the new write...
        let second = try pair.pullModel(SyncItem.self, after: first.last?.cursor)
        #expect(second.map(\.appliedRecords) == [1])
        #expect(pair.consumerDatabase.get(id: 1, of: SyncItem.self)?.title == "after")
        // ...where the consumer's own clock would have skipped it.
        let naive = SyncPair(coding, producer: producer)
        let skipped = try naive.pullModel(SyncItem.self, after: SyncCursor(date: consumerNow))
        #expect(skipped.map(\.appliedRecords) == [0])
    }

    @Test("The consumer's clock moves past received timestamps, so its later writes win")
    func clockAdvances() throws {
        let pair = SyncPair()
        let ahead = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000, counter: 0, replica: 2)
        pair.producerDatabase.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: 1), timestamp: ahead)
        pair.producerDatabase.set("remote", for: path(1), timestamp: ahead)
        try pair.pullModel(SyncItem.self)
        #expect(pair.consumerDatabase.clock.now() > ahead)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        item.title = "local"
        #expect(item.title == "local")
    }

    // MARK: Paging

    /// A producer with `count` records of `SyncItem`, each at its own timestamp.
    private func pair(withRecords count: Int) -> SyncPair {
        let pair = SyncPair()
        for index in 0 ..< count {
            pair.producerDatabase.set("v\(index)", for: path(index + 1), timestamp: stamp(Int64(index)))
        }
        return pair
    }

    @Test("Limit 1: one record per page, the last page complete")
    func limitOne() throws {
        let pair = pair(withRecords: 5)
        let results = try pair.pullModel(SyncItem.self, limit: 1)
        #expect(results.map(\.appliedRecords) == [1, 1, 1, 1, 1])
        #expect(results.map(\.isComplete) == [false, false, false, false, true])
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
    }

    @Test("An exact multiple of the limit: no empty page at the end")
    func exactMultiple() throws {
        let pair = pair(withRecords: 6)
        let results = try pair.pullModel(SyncItem.self, limit: 3)
        #expect(results.map(\.appliedRecords) == [3, 3])
        #expect(results.map(\.isComplete) == [false, true])
        #expect(results.last?.nextPage == nil)
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
    }

    @Test("Nothing to send: one empty, complete page; a cursor comes back unchanged")
    func empty() throws {
        let pair = SyncPair()
        let results = try pair.pullModel(SyncItem.self, limit: 10)
        #expect(results.count == 1)
        #expect(results[0].appliedRecords == 0)
        #expect(results[0].isComplete)
        #expect(results[0].cursor == nil)

        let cursor = SyncCursor(after: stamp(5))
        let later = try pair.pullModel(SyncItem.self, after: cursor, limit: 10)
        #expect(later.map(\.cursor) == [cursor])
        #expect(later.map(\.appliedRecords) == [0])
    }

    @Test("Records of other models between pages are skipped over, not sent")
    func otherModelsInterleaved() throws {
        let pair = SyncPair()
        for index in 0 ..< 20 {
            let model = index % 4 == 0 ? SyncItem.modelId : SyncOwner.modelId
            pair.producerDatabase.set("v\(index)", for: Path(model: model, instance: index, property: 1), timestamp: stamp(Int64(index)))
        }
        let results = try pair.pullModel(SyncItem.self, limit: 2)
        #expect(results.map(\.appliedRecords) == [2, 2, 1])
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase, model: SyncItem.modelId))
    }

    @Test("The producer caps pages at its maximum page size")
    func maximumPageSize() throws {
        let pair = pair(withRecords: 7)
        pair.producer.maximumPageSize = 2
        let results = try pair.pullModel(SyncItem.self, limit: 1_000)
        #expect(results.map(\.appliedRecords) == [2, 2, 2, 1])
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
    }

    @Test("A limit below 1 is refused on both sides")
    func invalidLimit() throws {
        let pair = SyncPair()
        #expect(throws: SyncError.invalidLimit(0)) {
            try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 0)
        }
        let hostile = Data(#"{"version":1,"kind":"modelUpdateRequest","body":{"model":2000,"limit":-5}}"#.utf8)
        #expect(remoteError(pair.producer.process(request: hostile), consumer: pair.consumer) == .invalidLimit(-5))
    }

    @Test("Cursors order by timestamp, then path; a date cursor starts just before its date")
    func cursorOrder() {
        let early = SyncCursor(timestamp: stamp(1), path: Path(model: 9, instance: 9, property: 9))
        let late = SyncCursor(timestamp: stamp(2), path: Path(model: 1, instance: 1, property: 1))
        #expect(early < late)
        #expect(SyncCursor(timestamp: stamp(1), path: Path(model: 1, instance: 1, property: 1)) < early)
        #expect(SyncCursor(after: stamp(1)) > early)
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let cursor = SyncCursor(date: date)
        #expect(cursor.map { $0.timestamp < Timestamp(time: 1_700_000_000_500_000) } == true)
        #expect(SyncCursor(date: .distantPast).map { $0.timestamp.time < 0 } == true)
    }
}
