import Foundation
@testable import Pathbase
import PathbaseSQLite
import Testing

@Suite("Codable collections: history and synchronization")
struct CollectionHistorySyncTests {

    let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: ["math"])

    @Test(arguments: HistoryDatabaseKind.allCases)
    func viewsAtADateShowTheStructAsItWas(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let users = database.collection(CollectionUser.self)
        try users.save(ada)
        let before = database.clock.now()
        var older = ada
        older.age = 37
        try users.save(older)
        let past = database.view(at: before).collection(CollectionUser.self)
        #expect(try past.fetch(id: ada.id)?.age == 36)
        #expect(try users.fetch(id: ada.id)?.age == 37)
        // Per-field history.
        let agePath = Path(model: users.modelKey, instance: ada.id.collectionInstanceKey, property: ageProperty(of: users))
        #expect(database.history(of: agePath, as: Int?.self).map(\.value) == [36, 37])
    }

    private func ageProperty(of users: CodableCollection<CollectionUser>) -> PropertyKey {
        CollectionKeys.property(forKey: "age", inCollection: users.name)
    }

    @Test(arguments: [false, true])
    func disjointFieldEditsBothSurviveAndSameFieldConverges(sqlite: Bool) throws {
        let first: any HistoryDatabase = try sqlite ? SQLiteDatabase() : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let second: any HistoryDatabase = try sqlite ? SQLiteDatabase() : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let usersA = first.collection(CollectionUser.self, name: "users")
        let usersB = second.collection(CollectionUser.self, name: "users")
        try usersA.save(ada)
        try pullCollection(usersB, from: first, into: second)
        #expect(try usersB.fetch(id: ada.id) == ada)

        // A renames her, B changes her age, each on its own copy.
        guard var onA = try usersA.fetch(id: ada.id), var onB = try usersB.fetch(id: ada.id) else {
            Issue.record("not synchronized")
            return
        }
        onA.name = "Augusta Ada"
        try usersA.save(onA)
        onB.age = 37
        try usersB.save(onB)
        try pullCollection(usersB, from: first, into: second)
        try pullCollection(usersA, from: second, into: first)
        let merged = CollectionUser(id: ada.id, name: "Augusta Ada", age: 37, tags: ["math"])
        #expect(try usersA.fetch(id: ada.id) == merged)
        #expect(try usersB.fetch(id: ada.id) == merged)

        // Both change the same field: the newest write wins everywhere.
        onA = merged
        onA.tags = ["first"]
        try usersA.save(onA)
        onB = merged
        onB.tags = ["second"]
        try usersB.save(onB)
        try pullCollection(usersB, from: first, into: second)
        try pullCollection(usersA, from: second, into: first)
        let tagsA = try usersA.fetch(id: ada.id)?.tags
        #expect(tagsA == (try usersB.fetch(id: ada.id)?.tags))
        #expect(tagsA == ["second"])
    }

    @Test(arguments: [false, true])
    func aDeletionAndAnEditOnTwoReplicasConverge(sqlite: Bool) throws {
        let first: any HistoryDatabase = try sqlite ? SQLiteDatabase() : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let second: any HistoryDatabase = try sqlite ? SQLiteDatabase() : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let usersA = first.collection(CollectionUser.self, name: "users")
        let usersB = second.collection(CollectionUser.self, name: "users")
        let grace = CollectionUser(id: UUID(), name: "Grace", age: 45, tags: [])
        try usersA.save([ada, grace])
        try pullCollection(usersB, from: first, into: second)
        // A deletes Ada; B edits her, and adds a struct of its own.
        try usersA.delete(id: ada.id)
        guard var onB = try usersB.fetch(id: ada.id) else {
            Issue.record("not synchronized")
            return
        }
        onB.age = 40
        try usersB.save(onB)
        let linus = CollectionUser(id: UUID(), name: "Linus", age: 29, tags: ["kernel"])
        try usersB.save(linus)
        try pullCollection(usersB, from: first, into: second)
        try pullCollection(usersA, from: second, into: first)
        // The same structs on both: the deletion holds (an edit of a field does not revive).
        let onFirst = try usersA.fetch().sorted { $0.name < $1.name }
        let onSecond = try usersB.fetch().sorted { $0.name < $1.name }
        #expect(onFirst == onSecond)
        #expect(onFirst == [grace, linus])
    }

    @Test
    func undoRestoresAField() throws {
        let undoable = UndoableDatabase(wrapping: InMemoryHistoryDatabase(), depth: 10)
        let users = undoable.collection(CollectionUser.self)
        try users.save(ada)
        var older = ada
        older.age = 37
        try users.save(older)
        undoable.undo()
        #expect(try undoable.collection(CollectionUser.self).fetch(id: ada.id)?.age == 36)
    }

    @Test("Undoing a collection's first save leaves its name registered, here and on a replica that synchronizes")
    func undoKeepsTheCollectionRegistered() throws {
        let first = UndoableDatabase(wrapping: InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1)))
        let second = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let grace = CollectionUser(id: UUID(), name: "Grace", age: 45, tags: [])
        try first.collection(CollectionUser.self, name: "users").save(ada)
        try second.collection(CollectionUser.self, name: "users").save(grace)
        for record in first.records() { second.apply(record) }
        #expect(first.undo())
        #expect(try first.collection(CollectionUser.self, name: "users").fetch(id: ada.id) == nil)
        for record in first.records() { second.apply(record) }
        #expect(first.collectionNames.values.contains("users"))
        #expect(second.collectionNames.values.contains("users"))
        #expect(try second.collection(CollectionUser.self, name: "users").fetch().map(\.id) == [grace.id])
        // The undo was the save alone: nothing is left to undo.
        #expect(!first.canUndo)
    }

    @Test
    func exportAndImportCarryCollections() throws {
        let source = InMemoryHistoryDatabase()
        try source.collection(CollectionUser.self).save(ada)
        let target = InMemoryHistoryDatabase()
        try target.importRecords(from: source.exportRecords())
        #expect(try target.collection(CollectionUser.self).fetch(id: ada.id) == ada)
        #expect(target.collectionNames.values.contains("CollectionUser"))
    }
}
