import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("Codable collections: queries")
struct CollectionQueryTests {

    let everyone = makeUsers(count: 60, seed: 7)

    /// The order the queries promise for equal keys: by instance key.
    private func byInstance(_ users: [CollectionUser]) -> [CollectionUser] {
        users.sorted { $0.id.collectionInstanceKey < $1.id.collectionInstanceKey }
    }

    private func stored(in kind: DatabaseKind) throws -> CodableCollection<CollectionUser> {
        let users = kind.make().collection(CollectionUser.self, indexes: [\.name, \.age])
        try users.save(everyone)
        return users
    }

    @Test(arguments: DatabaseKind.allCases)
    func comparisonsAndCombinations(kind: DatabaseKind) throws {
        let users = try stored(in: kind)
        func check(_ filter: CollectionFilter<CollectionUser>, _ expected: (CollectionUser) -> Bool, _ comment: Comment) throws {
            #expect(try users.fetch(where: filter) == byInstance(everyone.filter(expected)), comment)
            #expect(try users.count(where: filter) == everyone.filter(expected).count, comment)
        }
        try check(\.age >= 18 && \.name != "", { ($0.age ?? -1) >= 18 && !$0.name.isEmpty }, ">= && !=")
        try check(\.age < 18 || \.name == "Ada", { ($0.age.map { $0 < 18 } ?? false) || $0.name == "Ada" }, "< ||")
        try check(!(\.age <= 40), { !($0.age.map { $0 <= 40 } ?? false) }, "!")
        try check(\.age > 70, { ($0.age ?? -1) > 70 }, ">")
        try check(\.age == nil, { $0.age == nil }, "== nil")
        try check(\.age != nil, { $0.age != nil }, "!= nil")
        try check(\.age == 30, { $0.age == 30 }, "== value")
        try check(\.age != 30, { $0.age != 30 }, "!= value (nil differs)")
        try check(.isIn(\.name, ["Ada", "Zed"]), { ["Ada", "Zed"].contains($0.name) }, "in")
        try check(.hasPrefix(\.name, "A"), { $0.name.hasPrefix("A") }, "prefix")
        try check(.contains(\.name, "ar"), { $0.name.contains("ar") }, "contains")
        try check(FieldKey("age") >= 50, { ($0.age ?? -1) >= 50 }, "string key")
        try check(\.tags == ["a"], { $0.tags == ["a"] }, "in memory (array)")
        try check(CollectionFilter<CollectionUser> { $0.tags.isEmpty } && \.age > 20, { $0.tags.isEmpty && ($0.age ?? -1) > 20 }, "closure && condition")
    }

    @Test(arguments: DatabaseKind.allCases)
    func sortsLimitsOffsetsFirstAndCount(kind: DatabaseKind) throws {
        let users = try stored(in: kind)
        let adults = everyone.filter { ($0.age ?? -1) >= 18 }
        let byName = byInstance(adults).sorted { $0.name.unicodeScalars.lexicographicallyPrecedes($1.name.unicodeScalars) }
        #expect(try users.fetch(where: \.age >= 18, sortedBy: \.name, limit: 20) == Array(byName.prefix(20)))
        #expect(try users.fetch(where: \.age >= 18, sortedBy: \.name, offset: 5, limit: 10) == Array(byName.dropFirst(5).prefix(10)))
        // Several keys: name ascending, then age descending.
        let twoKeys = byInstance(everyone).sorted { lhs, rhs in
            if lhs.name != rhs.name { return lhs.name.unicodeScalars.lexicographicallyPrecedes(rhs.name.unicodeScalars) }
            switch (lhs.age, rhs.age) {
            case let (left?, right?) where left != right: return left > right
            case (nil, _?): return false
            case (_?, nil): return true
            default: return false
            }
        }
        #expect(try users.fetch(where: .all, sortedBy: [.ascending(\.name), .descending(\.age)]) == twoKeys)
        #expect(try users.fetch(where: .all, sortedBy: [.ascending(FieldKey("name")), .descending(FieldKey("age"))]) == twoKeys)
        let oldest = everyone.compactMap(\.age).max()
        #expect(try users.first(where: \.age != nil, sortedBy: [.descending(\.age)])?.age == oldest)
        #expect(try users.count() == everyone.count)
        #expect(try users.fetch(where: \.age > 1000, sortedBy: \.name).isEmpty)
    }

    @Test(arguments: DatabaseKind.allCases)
    func unknownStringKeysAreTypedErrors(kind: DatabaseKind) throws {
        let users = try stored(in: kind)
        #expect(throws: CollectionError.unknownField(collection: "CollectionUser", key: "nickname")) {
            try users.fetch(where: FieldKey("nickname") == "x")
        }
        #expect(throws: CollectionError.unknownField(collection: "CollectionUser", key: "nickname")) {
            try users.fetch(where: .all, sortedBy: [.ascending(FieldKey("nickname"))])
        }
    }

    @Test
    func sqliteRunsCollectionFiltersInSQL() throws {
        // A wrapper that counts reads: a filter run in SQL decodes only the matches.
        let database = try SQLiteDatabase()
        let users = database.collection(CollectionUser.self)
        try users.save(everyone)
        let filter: CollectionFilter<CollectionUser> = \.age >= 18 && \.name != ""
        #expect(users.storedPredicate(for: filter) != nil)
        let plan = try database.queryPlan(of: users.modelKey, where: users.storedPredicate(for: filter), sortedBy: nil)
        // Index searches (a range of the property's value index, then primary-key lookups),
        // no scan; the matches are sorted by id.
        #expect(!plan.isEmpty && plan.allSatisfy { $0.hasPrefix("SEARCH") || $0 == "USE TEMP B-TREE FOR ORDER BY" }, "\(plan)")
        #expect(plan.first?.contains("value_index_") == true, "\(plan)")
    }
}
