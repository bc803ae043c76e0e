import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: a collection query's matches are read one instance at a time and stay exact")
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
}
