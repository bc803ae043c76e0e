import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: a collection query's matches are read with the query, or one instance at a time, and stay exact")
struct QueryMatchValuesTests {

    private struct Item: Codable, Identifiable, Equatable {
        var id: Int
        var group: Int
        var name: String
        var note: String?
        var payload: Data
        var tags: [String]
    }

    private static func items() -> [Item] {
        (0 ..< 30).map { Item(id: $0, group: $0 % 3, name: "item \($0)", note: $0 % 2 == 0 ? nil : "odd", payload: Data([UInt8($0)]), tags: ["t\($0)"]) }
    }

    @Test("Matches read inside read { } equal the stored structs; instances outside the matches read from the file")
    func matchesAndOthersInOneRead() throws {
        let database = try SQLiteDatabase()
        let items = database.collection(Item.self, indexes: [\.group])
        try items.save(Self.items())
        let (group, other, all) = try database.read {
            (try items.fetch(where: \.group == 1), try items.fetch(id: 3), try items.fetch())
        }
        #expect(group == Self.items().filter { $0.group == 1 })
        #expect(other == Self.items()[3])
        #expect(all == Self.items())
        // Outside a transaction nothing is kept, and the answer is the same.
        #expect(try items.fetch(where: \.group == 1) == group)
    }

    @Test("A save between two queries of one batch is read by the second")
    func saveBetweenQueries() throws {
        let database = try SQLiteDatabase()
        let items = database.collection(Item.self, indexes: [\.group])
        try items.save(Self.items())
        let (first, second) = try database.batch {
            let first = try items.fetch(where: \.group == 2)
            var changed = first[0]
            changed.name = "renamed"
            changed.note = nil
            try items.save(changed)
            return (first, try items.fetch(where: \.group == 2))
        }
        #expect(first[0].name == "item 2")
        #expect(second[0].name == "renamed" && second[0].note == nil)
        #expect(Array(second.dropFirst()) == Array(first.dropFirst()))
    }

    @Test("What a rolled-back nested batch saved is not read from the kept matches afterwards")
    func rolledBackSave() throws {
        let database = try SQLiteDatabase()
        let items = database.collection(Item.self, indexes: [\.group])
        try items.save(Self.items())
        let after = try database.batch { () -> [Item] in
            #expect(throws: TestError.self) {
                try database.batch {
                    var item = Self.items()[4]
                    item.name = "changed"
                    try items.save(item)
                    #expect(try items.fetch(where: \.group == 1).first { $0.id == 4 }?.name == "changed")
                    throw TestError()
                }
            }
            return try items.fetch(where: \.group == 1)
        }
        #expect(after == Self.items().filter { $0.group == 1 })
    }

    @Test("Without a limit, the query returns its matches' values: the matches are kept, in any order, other instances are not")
    func matchesComeWithTheirValues() throws {
        let database = try SQLiteDatabase()
        let items = database.collection(Item.self, indexes: [\.group])
        try items.save(Self.items())
        // The value index returns group 1, then group 2: the kept matches do not ascend.
        let predicate = items.storedPredicate(for: \.group >= 1)
        try database.read {
            let ids = database.instanceIds(of: items.modelKey, where: predicate, sortedBy: nil, offset: 0, limit: nil, readingValues: true)
            #expect(ids == Self.items().filter { $0.group >= 1 }.map(\.id))
            let kept = try database.lock.withLock { () throws(SQLiteDatabaseError) -> [Bool] in
                let handle = try database.openHandle()
                return try [2, 29, 1, 28, 3, 14].map { instance throws(SQLiteDatabaseError) -> Bool in
                    let status = Path.status(model: items.modelKey, instance: instance)
                    if case .kept = try database.listingColumns.value(at: status, connection: handle) { return true }
                    return false
                }
            }
            // 3 is in group 0.
            #expect(kept == [true, true, true, true, false, true])
        }
        // The plan of that statement still starts from the value index.
        let plan = try database.queryPlan(of: items.modelKey, where: predicate, sortedBy: nil, readingValues: true)
        #expect(plan.contains { $0.contains("value_index_\(items.modelKey)_") }, "\(plan)")
    }

    @Test("A range, a sort, an offset and deleted structs read inside read { } as outside it and as the stored structs")
    func rangesSortsOffsetsAndDeletions() throws {
        let database = try SQLiteDatabase()
        let items = database.collection(Item.self, indexes: [\.group])
        try items.save(Self.items())
        try items.delete(id: 4)
        try items.delete(id: 23)
        let stored = Self.items().filter { $0.id != 4 && $0.id != 23 }
        // The value index returns group 1 before group 2: not in id order.
        let expectedRange = stored.filter { $0.group >= 1 }
        let expectedSorted = expectedRange.sorted { $0.name > $1.name }
        let (range, sorted, paged, unindexed) = try database.read {
            (
                try items.fetch(where: \.group >= 1),
                try items.fetch(where: \.group >= 1, sortedBy: \.name, descending: true),
                try items.fetch(where: \.group >= 1, sortedBy: [], offset: 5),
                try items.fetch(where: \.name >= "item 2")
            )
        }
        #expect(range == expectedRange)
        #expect(sorted == expectedSorted)
        #expect(paged == Array(expectedRange.dropFirst(5)))
        #expect(unindexed == stored.filter { $0.name >= "item 2" })
        #expect(try items.fetch(where: \.group >= 1) == range)
        #expect(try items.fetch(where: \.group >= 1, sortedBy: \.name, descending: true) == sorted)
    }

    private struct Pet: Codable, Identifiable, Equatable {
        var id: Int
        var name: String
    }

    /// Fetches its pet while it decodes: a struct decoded while another one is.
    private struct Owner: Codable, Identifiable, Equatable {
        @TaskLocal static var pets: CodableCollection<Pet>?
        var id: Int
        var name: String
        var pet: Pet?

        enum CodingKeys: String, CodingKey { case id, name }

        init(id: Int, name: String, pet: Pet?) {
            self.id = id
            self.name = name
            self.pet = pet
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            pet = try Self.pets?.fetch(id: id)
            name = try container.decode(String.self, forKey: .name)
        }
    }

    @Test("A struct whose init(from:) fetches another struct of the database reads its own fields after it")
    func structDecodedWhileAnotherIs() throws {
        let database = try SQLiteDatabase()
        let owners = database.collection(Owner.self)
        let pets = database.collection(Pet.self)
        let expected = (0 ..< 5).map { Owner(id: $0, name: "owner \($0)", pet: Pet(id: $0, name: "pet \($0)")) }
        try owners.save(expected.map { Owner(id: $0.id, name: $0.name, pet: nil) })
        try pets.save(expected.compactMap(\.pet))
        let fetched = try Owner.$pets.withValue(pets) {
            try database.read { (try owners.fetch(), try owners.fetch(id: 3)) }
        }
        #expect(fetched.0 == expected)
        #expect(fetched.1 == expected[3])
    }
}
