import Foundation
@testable import Pathbase
import PathbaseSQLite
import Testing

@Suite("Codable collections: storage")
struct CollectionStorageTests {

    let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: ["math"])

    @Test(arguments: DatabaseKind.allCases)
    func savedStructsReadBackByIdAndAll(kind: DatabaseKind) throws {
        let users = kind.make().collection(CollectionUser.self)
        let grace = CollectionUser(id: UUID(), name: "Grace", age: nil, tags: [])
        try users.save(ada)
        try users.save([grace])
        #expect(try users.fetch(id: ada.id) == ada)
        #expect(try users.fetch(id: grace.id) == grace)
        #expect(try users.fetch(id: UUID()) == nil)
        #expect(try Set(users.fetch().map(\.id)) == [ada.id, grace.id])
    }

    @Test(arguments: DatabaseKind.allCases)
    func stringAndIntegerIds(kind: DatabaseKind) throws {
        let database = kind.make()
        let tags = database.collection(CollectionTag.self)
        try tags.save(CollectionTag(id: "swift", label: "Swift"))
        #expect(try tags.fetch(id: "swift")?.label == "Swift")
        let nodes = database.collection(CollectionNode.self)
        try nodes.save(CollectionNode(id: 42, title: "answer", next: nil))
        #expect(try nodes.fetch(id: 42)?.title == "answer")
        #expect(try nodes.fetch(id: 43) == nil)
    }

    @Test(arguments: DatabaseKind.allCases)
    func settingAnOptionalToNilClearsIt(kind: DatabaseKind) throws {
        let users = kind.make().collection(CollectionUser.self)
        try users.save(ada)
        var changed = ada
        changed.age = nil
        try users.save(changed)
        #expect(try users.fetch(id: ada.id)?.age == nil)
        #expect(try database(users).collection(CollectionUser.self).fetch(id: ada.id)?.age == nil)
    }

    private func database(_ collection: CodableCollection<CollectionUser>) -> any Database {
        collection.database
    }

    @Test
    func pathsDeriveFromNameIdAndKeyOnEveryReplica() throws {
        let first = InMemoryHistoryDatabase()
        let second = InMemoryHistoryDatabase()
        try first.collection(CollectionUser.self, name: "users").save(ada)
        try second.collection(CollectionUser.self, name: "users").save(ada)
        let paths = { (database: InMemoryHistoryDatabase) in Set(database.records(after: nil).map(\.path)) }
        #expect(paths(first) == paths(second))
        let model = CollectionKeys.model(named: "users")
        #expect(paths(first).contains(Path(model: model, instance: ada.id.collectionInstanceKey, property: CollectionKeys.property(forKey: "name", inCollection: "users"))))
    }

    @Test
    func saveWritesOnlyChangedFields() throws {
        let counting = WriteCountingDatabase(wrapping: InMemoryDatabase())
        let users = counting.collection(CollectionUser.self)
        try users.save(ada)
        counting.resetWrites()
        var older = ada
        older.age = 37
        try users.save(older)
        let ageProperty = CollectionKeys.property(forKey: "age", inCollection: "CollectionUser")
        #expect(counting.writes.map(\.property) == [ageProperty])
        counting.resetWrites()
        try users.save(older)
        #expect(counting.writes.isEmpty)
    }

    @Test
    func aStaleCopyDoesNotOverwriteAFieldChangedElsewhere() throws {
        let database = InMemoryDatabase()
        let mine = database.collection(CollectionUser.self)
        try mine.save(ada)
        guard var copy = try mine.fetch(id: ada.id) else {
            Issue.record("not stored")
            return
        }
        // Another handle (another part of the app, or a sync) renames her meanwhile.
        let theirs = database.collection(CollectionUser.self)
        var renamed = ada
        renamed.name = "Augusta Ada"
        try theirs.save(renamed)
        copy.age = 37
        try mine.save(copy)
        let stored = try mine.fetch(id: ada.id)
        #expect(stored?.name == "Augusta Ada")
        #expect(stored?.age == 37)
    }

    /// Counting, deleting by query and fetching other structs decode structs to evaluate the
    /// filter where it can't run in SQL; those structs never reach the app, so they are no
    /// bases: they made a stale copy overwrite a field changed meanwhile.
    @Test(arguments: ["count", "delete", "fetch"])
    func structsLeftOutOfResultsAreNoBases(reading: String) throws {
        let database = InMemoryDatabase()
        let mine = database.collection(CollectionUser.self)
        try mine.save(ada)
        guard var copy = try mine.fetch(id: ada.id) else {
            Issue.record("not stored")
            return
        }
        var renamed = ada
        renamed.name = "Augusta Ada"
        try database.collection(CollectionUser.self).save(renamed)
        switch reading {
        case "count": _ = try mine.count(where: \.age > 0)
        case "delete": try mine.delete(where: \.age > 100)
        default: _ = try mine.fetch(where: \.age > 100)
        }
        copy.age = 37
        try mine.save(copy)
        let stored = try mine.fetch(id: ada.id)
        #expect(stored?.name == "Augusta Ada")
        #expect(stored?.age == 37)
    }

    /// The bases of saves are kept for every struct of the latest fetch, however many: a
    /// fetch of more than the cache's first limit (10^4) kept none of its first structs', so a
    /// stale copy overwrote what another handle changed meanwhile.
    @Test(arguments: [false, true])
    func aStaleCopyFromALargeFetchDoesNotOverwriteAFieldChangedElsewhere(byQuery: Bool) throws {
        let database = InMemoryDatabase()
        let mine = database.collection(CollectionUser.self)
        let count = FieldSnapshotCache.minimumLimit * 5 / 2
        try mine.save((0 ..< count).map { CollectionUser(id: UUID(), name: "user \($0)", age: $0 % 90, tags: []) })
        let copies = byQuery ? try mine.fetch(where: \.age >= 0) : try mine.fetch()
        #expect(copies.count == count)
        // Another handle renames the first and the last struct fetched meanwhile.
        let theirs = database.collection(CollectionUser.self)
        for index in [0, count - 1] {
            var renamed = copies[index]
            renamed.name = "renamed \(index)"
            try theirs.save(renamed)
        }
        for index in [0, count - 1] {
            var copy = copies[index]
            copy.age = 100
            try mine.save(copy)
            let stored = try mine.fetch(id: copy.id)
            #expect(stored?.name == "renamed \(index)")
            #expect(stored?.age == 100)
        }
    }

    /// A query's structs are the bases of their next saves on every database, also where
    /// the query runs in SQL and its structs are decoded without a match each.
    @Test(arguments: DatabaseKind.allCases)
    func aStaleCopyFromAQueryDoesNotOverwriteAFieldChangedElsewhere(kind: DatabaseKind) throws {
        let database = kind.make()
        let users = (0 ..< 10).map { (index: Int) in CollectionUser(id: UUID(), name: "user \(index)", age: index, tags: []) }
        try database.collection(CollectionUser.self).save(users)
        // A handle whose bases come from its queries only.
        let mine = database.collection(CollectionUser.self)
        // Unsorted, then sorted and paged (in SQL on SQLite); each finds another struct first.
        let queries: [() throws -> [CollectionUser]] = [
            { try mine.fetch(where: \.age == 5) },
            { try mine.fetch(where: \.age >= 7 && \.age <= 9, sortedBy: \.name, limit: 2) }
        ]
        for query in queries {
            guard var copy = try query().first else {
                Issue.record("no match")
                continue
            }
            // Another handle renames it meanwhile.
            var renamed = copy
            renamed.name = "renamed"
            try database.collection(CollectionUser.self).save(renamed)
            copy.age = 100
            try mine.save(copy)
            let stored = try mine.fetch(id: copy.id)
            #expect(stored?.name == "renamed")
            #expect(stored?.age == 100)
        }
    }

    @Test(arguments: DatabaseKind.allCases)
    func replaceClearsKeysTheStructNoLongerHas(kind: DatabaseKind) throws {
        let database = kind.make()
        let newer = database.collection(CollectionUserWithScore.self, name: "people")
        let id = UUID()
        try newer.save(CollectionUserWithScore(id: id, name: "Ada", age: 36, tags: [], score: 99))
        let older = database.collection(CollectionUser.self, name: "people")
        try older.save(CollectionUser(id: id, name: "Ada", age: 36, tags: []))
        #expect(try database.collection(CollectionUserWithScore.self, name: "people").fetch(id: id)?.score == 99)
        try older.replace(CollectionUser(id: id, name: "Ada", age: 36, tags: []))
        #expect(try database.collection(CollectionUserWithScore.self, name: "people").fetch(id: id)?.score == nil)
    }

    @Test(arguments: DatabaseKind.allCases)
    func addedFieldsReadAsNilDefaultOrNamedError(kind: DatabaseKind) throws {
        let database = kind.make()
        try database.collection(CollectionUser.self, name: "people").save(ada)
        // Optional: nil.
        #expect(try database.collection(CollectionUserWithScore.self, name: "people").fetch(id: ada.id)?.score == nil)
        // Declared default.
        let ranked = database.collection(CollectionUserWithRank.self, name: "people", defaults: ["rank": 7])
        #expect(try ranked.fetch(id: ada.id)?.rank == 7)
        // Neither: a typed error naming the instance and the key, never a silent empty result.
        let strict = database.collection(CollectionUserWithRank.self, name: "people")
        #expect(throws: CollectionError.missingField(collection: "people", id: ada.id.uuidString, key: "rank")) {
            try strict.fetch()
        }
        // The removed field's values stay stored.
        #expect(try database.collection(CollectionUser.self, name: "people").fetch(id: ada.id) == ada)
    }

    @Test(arguments: DatabaseKind.allCases)
    func aStructThatNoLongerDecodesFailsOnlyTheFetchesThatIncludeIt(kind: DatabaseKind) throws {
        let database = kind.make()
        let grace = CollectionUser(id: UUID(), name: "Grace", age: 45, tags: [])
        try database.collection(CollectionUser.self, name: "people").save([ada, grace])
        // `rank` is added: Ada is saved with one, Grace has none and no longer decodes.
        let ranked = database.collection(CollectionUserWithRank.self, name: "people")
        try ranked.save(CollectionUserWithRank(id: ada.id, name: "Ada", rank: 1))
        #expect(try ranked.fetch(where: \.name == "Ada").map(\.rank) == [1])
        #expect(throws: CollectionError.missingField(collection: "people", id: grace.id.uuidString, key: "rank")) {
            try ranked.fetch(where: \.name == "Grace")
        }
        // Counting and deleting read the stored values, not the structs, on every backend;
        // Grace's missing rank is no value, which `>= 0` does not include.
        #expect(try ranked.count(where: \.name == "Grace") == 1)
        #expect(try ranked.count(where: \.rank >= 0) == 1)
        try ranked.delete(where: \.name == "Grace")
        #expect(try ranked.fetch().map(\.name) == ["Ada"])
    }

    @Test(arguments: DatabaseKind.backends)
    func aRenamedKeyIsANewFieldAndTheOldValueStays(kind: DatabaseKind) throws {
        struct Renamed: Codable, Identifiable {
            var id: UUID
            var fullName: String?
            var age: Int?
        }
        let database = kind.make()
        let before = database.collection(CollectionUser.self, name: "renamed")
        try before.save(ada)
        let after = database.collection(Renamed.self, name: "renamed")
        guard var renamed = try after.fetch(id: ada.id) else {
            Issue.record("not found")
            return
        }
        #expect(renamed.fullName == nil && renamed.age == 36)
        renamed.fullName = "Augusta Ada"
        try after.save(renamed)
        #expect(try after.fetch(id: ada.id)?.fullName == "Augusta Ada")
        #expect(try before.fetch(id: ada.id)?.name == "Ada")
    }

    @Test
    func aBatchThatFailsStoresNothing() throws {
        let database = try SQLiteDatabase()
        let fussy = database.collection(CollectionFussy.self)
        try fussy.save(CollectionFussy(id: 1, value: 1))
        // The struct's own encoding error, as the collection's typed error.
        #expect(throws: CollectionError.unsupportedEncoding(collection: "CollectionFussy", reason: "Refused()")) {
            try fussy.save([CollectionFussy(id: 2, value: 2), CollectionFussy(id: 3, value: -1)])
        }
        #expect(try fussy.fetch().map(\.id) == [1])
    }

    @Test
    func aBatchIsOneTransaction() throws {
        let database = try SQLiteDatabase()
        let users = database.collection(CollectionUser.self)
        let many = makeUsers(count: 50, seed: 1)
        try users.save(many)
        #expect(try users.count() == 50)
    }

    @Test(arguments: DatabaseKind.allCases)
    func deleteByIdByQueryAndAll(kind: DatabaseKind) throws {
        let users = kind.make().collection(CollectionUser.self)
        let everyone = makeUsers(count: 20, seed: 2)
        try users.save(everyone)
        try users.delete(id: everyone[0].id)
        #expect(try users.fetch(id: everyone[0].id) == nil)
        try users.delete(where: \.age < 30)
        let expected = everyone.dropFirst().filter { $0.age.map { $0 >= 30 } ?? true }
        #expect(try Set(users.fetch().map(\.id)) == Set(expected.map(\.id)))
        try users.removeAll()
        #expect(try users.fetch().isEmpty)
        // Saving again restores it whole.
        try users.save(everyone[0])
        #expect(try users.fetch(id: everyone[0].id) == everyone[0])
    }

    @Test
    func anIdCollisionIsReportedNotMerged() throws {
        let database = InMemoryDatabase()
        let tags = database.collection(CollectionTag.self)
        try tags.save(CollectionTag(id: "swift", label: "Swift"))
        // Another id that (as if) hashed to the same instance key is stored there.
        let instance = "swift".collectionInstanceKey
        database.set("kotlin", for: Path(model: tags.modelKey, instance: instance, property: CollectionKeys.originProperty))
        #expect(throws: CollectionError.idCollision(collection: "CollectionTag", id: "swift", storedId: "kotlin")) {
            try tags.save(CollectionTag(id: "swift", label: "Changed"))
        }
        #expect(try tags.fetch(id: "swift") == nil)
        let labelPath = Path(model: tags.modelKey, instance: instance, property: CollectionKeys.property(forKey: "label", inCollection: "CollectionTag"))
        #expect(database.get(labelPath) == "Swift")
    }

    @Test
    func aFieldKeyCollisionIsReported() throws {
        // Find two keys whose property keys collide in this collection (31-bit keys: a
        // collision shows up after about 55 000 keys).
        var seen: [PropertyKey: String] = [:]
        var pair: (String, String)?
        for index in 0 ..< 400_000 {
            let key = "k\(index)"
            let property = CollectionKeys.property(forKey: key, inCollection: "dynamic")
            if let other = seen[property] {
                pair = (other, key)
                break
            }
            seen[property] = key
        }
        guard let (first, second) = pair else {
            Issue.record("no collision found")
            return
        }
        let database = InMemoryDatabase()
        let dynamic = database.collection(CollectionDynamic.self, name: "dynamic")
        let error = #expect(throws: CollectionError.self) {
            try dynamic.save(CollectionDynamic(id: 1, fields: [first: 1, second: 2]))
        }
        guard case .fieldKeyCollision(collection: "dynamic", _, _)? = error else {
            Issue.record("expected CollectionError.fieldKeyCollision, got \(String(describing: error))")
            return
        }
        #expect(try dynamic.fetch().isEmpty)
    }

    @Test
    func aCollectionNameCollisionIsReported() throws {
        let database = InMemoryDatabase()
        let users = database.collection(CollectionUser.self, name: "users")
        // Another name (as if) hashed to the same model key owns it.
        database.set("others", for: Path(model: CollectionKeys.catalogModel, instance: users.modelKey, property: CollectionKeys.catalogNameProperty))
        #expect(throws: CollectionError.collectionNameCollision(name: "users", storedName: "others")) {
            try users.save(ada)
        }
        #expect(throws: CollectionError.collectionNameCollision(name: "users", storedName: "others")) {
            try users.fetch()
        }
    }

    @Test
    func collectionNamesAreListed() throws {
        let database = InMemoryDatabase()
        try database.collection(CollectionUser.self, name: "users").save(ada)
        #expect(database.collectionNames.values.sorted() == ["users"])
    }

    @Test
    func generatedIdsAreUniqueAcrossReplicas() throws {
        let first = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let second = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let a = first.collection(CollectionNode.self)
        let b = second.collection(CollectionNode.self)
        let idsA = try (0 ..< 100).map { _ in try a.nextId() }
        let idsB = try (0 ..< 100).map { _ in try b.nextId() }
        #expect(Set(idsA).count == 100)
        #expect(Set(idsA).isDisjoint(with: idsB))
        #expect(idsA == idsA.sorted())
        // The counter is kept in the database: another handle goes on counting.
        let again = try first.collection(CollectionNode.self).nextId()
        #expect(again > (idsA.last ?? 0))
    }

    @Test("Generated ids stay apart after replicas exchange their records, also through an editing context", arguments: [false, true])
    func generatedIdsStayUniqueAcrossSync(sqlite: Bool) throws {
        let first: any HistoryDatabase =
            try sqlite ? SQLiteDatabase(options: SQLiteDatabase.Options(clock: HybridLogicalClock(replica: 1))) : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let second: any HistoryDatabase =
            try sqlite ? SQLiteDatabase(options: SQLiteDatabase.Options(clock: HybridLogicalClock(replica: 2))) : InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let context = second.createEditingContext()
        let a = first.collection(CollectionNode.self), b = context.collection(CollectionNode.self)
        func exchange() {
            for record in first.records() { second.apply(record) }
            for record in second.records() { first.apply(record) }
        }
        var saved: Set<Int> = []
        for round in 0 ..< 3 {
            let onA = CollectionNode(id: try a.nextId(), title: "a\(round)")
            let onB = CollectionNode(id: try b.nextId(), title: "b\(round)")
            try a.save(onA)
            try b.save(onB)
            context.commitChanges()
            saved.formUnion([onA.id, onB.id])
            // Each side's counter reaches the other, as synchronization carries every record.
            exchange()
        }
        #expect(saved.count == 6)
        #expect(Set(try a.fetch().map(\.id)) == saved)
        #expect(Set(try second.collection(CollectionNode.self).fetch().map(\.id)) == saved)
    }

    @Test("Ids a replica counted at the shared counter (before counters had a path per replica) are not handed out again")
    func generatedIdsCountOnFromTheSharedCounter() throws {
        let database = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 7))
        let nodes = database.collection(CollectionNode.self)
        database.set(7, for: Path(model: CollectionKeys.counterModel, instance: nodes.modelKey, property: 1))
        database.set(40, for: Path(model: CollectionKeys.counterModel, instance: nodes.modelKey, property: 2))
        #expect(try nodes.nextId() == 7 << 31 | 41)
        // Another replica's number there (synchronized) is not this replica's count.
        let other = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 8))
        let otherNodes = other.collection(CollectionNode.self)
        other.set(7, for: Path(model: CollectionKeys.counterModel, instance: otherNodes.modelKey, property: 1))
        other.set(40, for: Path(model: CollectionKeys.counterModel, instance: otherNodes.modelKey, property: 2))
        #expect(try otherNodes.nextId() == 8 << 31 | 1)
    }

    @Test
    func structsThatDoNotEncodeAsFieldsAreRefused() throws {
        struct Wrapped: Codable, Identifiable {
            var id: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(id)
            }
        }
        let database = InMemoryDatabase()
        let error = #expect(throws: CollectionError.self) {
            try database.collection(Wrapped.self).save(Wrapped(id: 1))
        }
        guard case .unsupportedEncoding? = error else {
            Issue.record("expected CollectionError.unsupportedEncoding, got \(String(describing: error))")
            return
        }
    }
}
