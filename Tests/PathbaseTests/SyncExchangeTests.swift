import Foundation
import Pathbase
import Testing

/// Round trips between two `InMemoryHistoryDatabase`s through `UpdateConsumer` and
/// `RequestProcessor`, with JSON and property lists.
@Suite("Sync: round trips between two databases")
struct SyncExchangeTests {

    /// Items with every kind of property, an owner and tags, one item deleted.
    private func fill(_ database: any HistoryDatabase) -> (first: SyncItem, second: SyncItem, owner: SyncOwner, tags: [SyncTag]) {
        let owner = SyncOwner.create(in: database, id: 1, name: "Olga")
        let tags = (1 ... 3).map { SyncTag.create(in: database, id: $0, label: "tag \($0)") }
        let first = SyncItem.create(in: database, id: 1, title: "First", count: 3, note: nil, owner: owner, tags: tags, scores: ["a": 1.5])
        let second = SyncItem.create(in: database, id: 2, title: "Second", count: 7)
        second.delete()
        tags[1].delete()
        return (first, second, owner, tags)
    }

    @Test("Instance statuses: new and deleted instances arrive with their statuses, values do not", arguments: SyncCoding.allCases)
    func instanceStatuses(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        _ = fill(pair.producerDatabase)

        let result = try pair.pullStatuses(SyncItem.self)
        #expect(result.instances == [1, 2])
        #expect(result.appliedRecords == 2)
        #expect(result.isComplete)
        #expect(result.cursor != nil)

        let first: SyncItem? = pair.consumerDatabase.get(id: 1)
        let second: SyncItem? = pair.consumerDatabase.get(id: 2)
        #expect(first?.status == .created)
        #expect(second?.status == .deleted)
        #expect(first?.title == "") // values come with instance or model updates
        #expect(pair.consumerDatabase.all(of: SyncItem.self).map(\.id) == [1])
    }

    @Test("Instance statuses after a cursor: only instances that are new or changed since", arguments: SyncCoding.allCases)
    func instanceStatusesAfterCursor(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let (first, second, _, _) = fill(pair.producerDatabase)
        let cursor = try pair.pullStatuses(SyncItem.self).cursor

        let none = try pair.pullStatuses(SyncItem.self, after: cursor)
        #expect(none.instances.isEmpty)
        #expect(none.cursor == cursor)

        second.insert() // restored
        first.count = 4 // changed, still created
        _ = SyncItem.create(in: pair.producerDatabase, id: 3, title: "Third")
        _ = SyncOwner.create(in: pair.producerDatabase, id: 9) // another model: not listed
        let changed = try pair.pullStatuses(SyncItem.self, after: cursor)
        #expect(changed.instances == [2, 1, 3])
        #expect(pair.consumerDatabase.get(id: 2, of: SyncItem.self)?.status == .created)
        #expect(pair.consumerDatabase.get(id: 3, of: SyncItem.self)?.status == .created)
        #expect(changed.cursor.map { $0 > cursor! } == true)
    }

    @Test("Instance update: every property of one instance, references and lists included", arguments: SyncCoding.allCases)
    func instanceUpdate(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        _ = fill(pair.producerDatabase)

        let result = try pair.pullInstance(1, of: SyncItem.self)
        #expect(result.instances == [1])
        #expect(result.skippedRecords == 0)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.status == .created)
        #expect(item.title == "First")
        #expect(item.count == 3)
        #expect(item.note == nil) // a stored nil, not the default "draft"
        #expect(item.owner?.id == 1)
        #expect(item.tags.map(\.id) == [1, 2, 3])
        #expect(item.scores == ["a": 1.5])
        // Instance 2 was not asked for.
        #expect(pair.consumerDatabase.get(id: 2, of: SyncItem.self) == nil)
        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase).filter { $0.hasPrefix("2000/1/") })
    }

    @Test("Instance update after a cursor: only the records written since", arguments: SyncCoding.allCases)
    func instanceUpdateAfterCursor(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let (first, _, _, _) = fill(pair.producerDatabase)
        let cursor = try pair.pullInstance(1, of: SyncItem.self).cursor
        first.title = "Renamed"
        first.owner = nil
        let result = try pair.pullInstance(1, of: SyncItem.self, after: cursor)
        #expect(result.appliedRecords == 2)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.title == "Renamed")
        #expect(item.owner == nil)
        #expect(item.count == 3)
    }

    @Test("Model updates: the whole model arrives, history included, and both sides read the same", arguments: SyncCoding.allCases)
    func modelUpdates(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let (first, _, _, _) = fill(pair.producerDatabase)
        first.title = "First, edited"
        try pair.pullModel(SyncItem.self, limit: 4)
        try pair.pullModel(SyncOwner.self)
        try pair.pullModel(SyncTag.self)

        #expect(snapshot(pair.consumerDatabase) == snapshot(pair.producerDatabase))
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.title == "First, edited")
        #expect(item.history(of: .title, as: String.self).map(\.value) == ["First", "First, edited"])
        #expect(item.owner?.name == "Olga")
        #expect(item.tags.map(\.label) == ["tag 1", "tag 2", "tag 3"])
        #expect(item.tags.map(\.status) == [.created, .deleted, .created]) // a deleted list element
        #expect(pair.consumerDatabase.all(of: SyncTag.self).count == 2)
    }

    @Test("A reference to an instance whose model was not synced reads as not created", arguments: SyncCoding.allCases)
    func referenceToMissingInstance(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        _ = fill(pair.producerDatabase)
        try pair.pullModel(SyncItem.self)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.owner?.status == .notCreated)
        try pair.pullModel(SyncOwner.self)
        #expect(item.owner?.status == .created)
        #expect(item.owner?.name == "Olga")
    }

    @Test("Deleting and clearing an instance travels as a deleted status and default values", arguments: SyncCoding.allCases)
    func deleteAndClear(coding: SyncCoding) throws {
        let pair = SyncPair(coding)
        let (first, _, _, _) = fill(pair.producerDatabase)
        let cursor = try pair.pullModel(SyncItem.self).last?.cursor
        first.deleteAndClearProperties()
        try pair.pullModel(SyncItem.self, after: cursor)
        let item = try #require(pair.consumerDatabase.get(id: 1, of: SyncItem.self))
        #expect(item.status == .deleted)
        #expect(item.title == "")
        #expect(item.note == "draft")
        #expect(item.owner == nil)
        #expect(item.tags.isEmpty)
    }

    @Test("Syncing both ways converges: each side pulls the other's changes", arguments: SyncCoding.allCases)
    func bothWays(coding: SyncCoding) throws {
        let a = InMemoryHistoryDatabase()
        let b = InMemoryHistoryDatabase()
        let aFromB = SyncPair(coding, producer: b, consumer: a)
        let bFromA = SyncPair(coding, producer: a, consumer: b)
        let shared = SyncItem.create(in: a, id: 1, title: "A")
        try bFromA.pullModel(SyncItem.self)
        let onB = try #require(b.get(id: 1, of: SyncItem.self))
        shared.title = "A2" // A edits the title...
        try bFromA.pullModel(SyncItem.self)
        onB.title = "B2" // ...B sees it and edits it again: B's write is newer
        onB.count = 10 // B edits the count while
        shared.note = "A" // A edits the note
        try aFromB.pullModel(SyncItem.self)
        try bFromA.pullModel(SyncItem.self)
        #expect(shared.title == "B2")
        #expect(onB.title == "B2")
        #expect(shared.count == 10)
        #expect(onB.note == "A")
        #expect(snapshot(a) == snapshot(b))
    }
}
