import Foundation
import Pathbase
import Testing

/// Applying updates: newest wins, applying twice changes nothing, a refused response
/// changes nothing, and what happens to values one side cannot read.
@Suite("Sync: applying updates")
struct SyncApplyTests {

    private func path(_ instance: InstanceKey, _ property: SyncItem.PropertyId = .title) -> Path {
        Path(model: SyncItem.modelId, instance: instance, property: property.rawValue)
    }

    @Test("Newest wins: an older received value never overwrites a newer local one", arguments: SyncCoding.allCases)
    func newestWins(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        pair.producerDatabase.set(InstanceStatus.created, for: .status(model: SyncItem.modelId, instance: 1), timestamp: stamp(1))
        pair.producerDatabase.set("remote, old", for: path(1), timestamp: stamp(10))
        pair.producerDatabase.set("remote, new", for: path(1, .note), timestamp: stamp(30))
        pair.consumerDatabase.set("local, new", for: path(1), timestamp: stamp(20))
        pair.consumerDatabase.set("local, old", for: path(1, .note), timestamp: stamp(20))

        try pair.pullModel(SyncItem.self)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.title == "local, new")
        #expect(item.note == "remote, new")
        // The older value is kept as history.
        #expect(item.history(of: .title, as: String.self).map(\.value) == ["remote, old", "local, new"])
    }

    @Test("Applying the same response twice changes nothing", arguments: SyncCoding.allCases)
    func applyTwice(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let item = SyncItem.create(in: pair.producerDatabase, id: 1, title: "Once", tags: [SyncTag.create(in: pair.producerDatabase, id: 1)])
        item.delete()
        for request in [
            try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 100),
            try pair.consumer.instanceStatusRequest(for: SyncItem.self),
            try pair.consumer.instanceUpdateRequest(for: 1, of: SyncItem.self)
        ] {
            let response = pair.producer.process(request: request)
            let first = try pair.consumer.apply(data: response)
            let before = snapshot(pair.consumerDatabase)
            let second = try pair.consumer.apply(data: response)
            #expect(snapshot(pair.consumerDatabase) == before)
            #expect(second == first)
        }
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase, model: SyncItem.modelId))
    }

    @Test("Pages applied in any order give the same state")
    func anyOrder() throws {
        let pair = SyncPair()
        for index in 0 ..< 9 {
            pair.producerDatabase.set("v\(index)", for: path(1), timestamp: stamp(Int64(index)))
        }
        var responses: [Data] = []
        var page: SyncCursor? = nil
        repeat {
            let request = try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 2, startingAt: page)
            let response = try pair.producer.process(modelUpdateRequest: request)
            responses.append(response)
            // Read the page's cursor with a throwaway consumer.
            page = try SyncPair().consumer.apply(modelUpdate: response).nextPage
        } while page != nil
        for response in responses.reversed() {
            try pair.consumer.apply(modelUpdate: response)
        }
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
        #expect(pair.consumerDatabase.get(path(1)) == "v8")
    }

    @Test("maximumClockSkew is a day: a record at the limit when the pull starts is taken, two seconds past it refused")
    func clockSkewBoundary() throws {
        let pair = SyncPair()
        #expect(pair.consumer.maximumClockSkew == 86_400)
        // The consumer reads its clock when the response arrives, a moment after these: a
        // record at the limit now is still within it then; two seconds past is beyond it
        // unless applying takes two seconds.
        let limit = Timestamp(time: Int64(Date().addingTimeInterval(86_400).timeIntervalSince1970 * 1_000_000))
        pair.producerDatabase.set("at the limit", for: path(1), timestamp: limit)
        try pair.pullModel(SyncItem.self)
        #expect(pair.consumerDatabase.get(path(1)) == "at the limit")

        let past = Timestamp(time: Int64(Date().addingTimeInterval(86_402).timeIntervalSince1970 * 1_000_000))
        pair.producerDatabase.set("past the limit", for: path(2), timestamp: past)
        #expect(throws: SyncError.timestampTooFarAhead(past)) {
            try pair.pullModel(SyncItem.self)
        }
        let refused: String? = pair.consumerDatabase.get(path(2))
        #expect(refused == nil)
    }

    @Test("A response from a producer whose clock runs days ahead is refused and changes nothing")
    func timestampTooFarAhead() throws {
        let pair = SyncPair()
        let future = Timestamp(time: Int64(Date().addingTimeInterval(3 * 86_400).timeIntervalSince1970 * 1_000_000))
        pair.producerDatabase.set("ok", for: path(1), timestamp: stamp(1))
        pair.producerDatabase.set("future", for: path(2), timestamp: future)
        let before = pair.consumerDatabase.clock.now()
        #expect(throws: SyncError.timestampTooFarAhead(future)) {
            try pair.pullModel(SyncItem.self)
        }
        #expect(snapshot(pair.consumerDatabase).isEmpty)
        #expect(pair.consumerDatabase.clock.now().time < future.time)
        #expect(pair.consumerDatabase.clock.now() > before)

        pair.consumer.maximumClockSkew = 7 * 86_400
        try pair.pullModel(SyncItem.self)
        #expect(pair.consumerDatabase.get(path(2)) == "future")
    }

    @Test("A property the consumer's model does not have is skipped and counted")
    func unknownPropertyOnConsumer() throws {
        // The consumer runs an app version whose SyncItem has `title` and `priority` only.
        let pair = SyncPair(consumerMap: { $0 == SyncItemV2.modelId ? SyncItemV2.self : nil })
        _ = SyncItem.create(in: pair.producerDatabase, id: 1, title: "Kept", count: 2)
        let result = try pair.pullModel(SyncItem.self).last
        #expect(result?.appliedRecords == 2) // status and title
        #expect(result?.skippedRecords == 5) // count, note, owner, tags, scores
        let item = SyncItemV2(database: pair.consumerDatabase, id: 1)
        #expect(item.status == .created)
        #expect(item.title == "Kept")
    }

    @Test("A stored value that is not of the property's type is left out by the producer")
    func valueOfAnotherType() throws {
        let pair = SyncPair()
        _ = SyncItem.create(in: pair.producerDatabase, id: 1, count: 4)
        pair.producerDatabase.set("four", for: path(1, .count)) // written by an older app version
        let result = try pair.pullModel(SyncItem.self).last
        #expect(result?.skippedRecords == 0)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.count == 4) // the readable value; on the producer it reads as 0
        #expect(SyncItem(database: pair.producerDatabase, id: 1).count == 0)
    }

    @Test("A NoValue marker (written by undo) travels and reads as nothing stored", arguments: SyncCoding.allCases)
    func noValue(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        _ = SyncItem.create(in: pair.producerDatabase, id: 1, title: "Set", note: "written")
        pair.producerDatabase.set(NoValue(), for: path(1, .note))
        try pair.pullModel(SyncItem.self)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.note == "draft")
        #expect(item.title == "Set")
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
    }

    @Test("Plain databases cannot exchange records: a typed error on both sides, nothing changes")
    func plainDatabases() throws {
        let plain = InMemoryDatabase()
        let consumer = UpdateConsumer(database: plain, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let history = SyncPair()
        _ = SyncItem.create(in: history.producerDatabase, id: 1, title: "x")
        let response = history.producer.process(request: try consumer.modelUpdateRequest(for: SyncItem.self, limit: 10))
        #expect(throws: SyncError.historyRequired(database: "InMemoryDatabase")) {
            try consumer.apply(data: response)
        }
        #expect(plain.count == 0)

        let producer = RequestProcessor(database: MinimalDatabase(), encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        let error = remoteError(producer.process(request: try history.consumer.instanceStatusRequest(for: SyncItem.self)), consumer: history.consumer)
        #expect(error == .historyRequired(database: "MinimalDatabase"))
        #expect(error?.description.contains("HistoryDatabase") == true)
    }

    @Test("A response about another model than its records, or another instance, is refused whole")
    func contradictoryResponse() throws {
        let pair = SyncPair()
        let item = #"{"path":[2000,1,1],"timestamp":[1,0,1],"value":"x"}"#
        let owner = #"{"path":[2001,1,1],"timestamp":[2,0,1],"value":"y"}"#
        func response(_ kind: String, instance: String = "", _ records: [String]) -> Data {
            Data(#"{"version":1,"kind":"\#(kind)","body":{"model":2000,\#(instance)"records":[\#(records.joined(separator: ","))],"isComplete":true}}"#.utf8)
        }
        let cases: [(Data, String)] = [
            (response("modelUpdate", [item, owner]), "model"),
            (response("instanceUpdate", instance: #""instance":2,"#, [item]), "instance"),
            (response("instanceUpdate", [item]), "instance"),
            (response("instanceStatuses", [item]), "status")
        ]
        for (data, label) in cases {
            expectSyncError("malformedMessage", "\(label)") { _ = try pair.consumer.apply(data: data) }
        }
        #expect(snapshot(pair.consumerDatabase).isEmpty)
        try pair.consumer.apply(data: response("modelUpdate", [item]))
        #expect(snapshot(pair.consumerDatabase).count == 1)
    }
}
