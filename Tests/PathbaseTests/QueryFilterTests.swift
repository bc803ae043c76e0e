import Foundation
import Pathbase
import PathbaseTestSupport
import PathbaseSQLite
import Testing

// Model ids 2140–2149.

@Model(id: 2140)
private final class QGadget {
    @Property(id: 1) var name: String
    @Property(id: 2) var price: Int
    @Property(id: 3) var weight: Double = 1.5
    @Property(id: 4) var inStock: Bool
    @Property(id: 5) var nickname: String?
    @Property(id: 6) var level: Int = 3
    @Property(id: 7) var added: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Reference(id: 8) var maker: QMaker?
    @ReferenceList(id: 9) var parts: [QMaker]

    /// Not stored: filters on it run in memory.
    var isCheap: Bool { price < 4 }
}

@Model(id: 2141)
private final class QMaker {
    @Property(id: 1) var name: String
}

@Suite("Query filters: pushed down to SQL, or evaluated, with the same results")
struct QueryFilterTests {

    private static let names = ["", "a", "ab", "abc", "b", "ba", "Zed", "äpfel", "b\u{1F600}", "ab\u{10FFFF}"]

    /// Random gadgets: some properties missing, some stored as another type or as nil,
    /// some instances deleted, references and lists to a few makers.
    private func fill(_ database: any Database, seed: UInt64) -> [QMaker] {
        var random = SplitMix64(seed: seed)
        let makers = (0 ..< 4).map { QMaker.create(in: database, id: $0, name: "maker \($0)") }
        for id in 0 ..< 60 {
            let gadget = database.create(id: id, of: QGadget.self)
            if Bool.random(using: &random) { gadget.name = Self.names.randomElement(using: &random) ?? "" }
            if Int.random(in: 0 ..< 4, using: &random) > 0 { gadget.price = Int.random(in: -3 ... 12, using: &random) }
            if Bool.random(using: &random) { gadget.weight = Double(Int.random(in: 0 ... 8, using: &random)) / 2 }
            if Bool.random(using: &random) { gadget.inStock = Bool.random(using: &random) }
            switch Int.random(in: 0 ..< 4, using: &random) {
            case 0: gadget.nickname = "x"
            case 1: gadget.nickname = nil
            case 2: gadget.nickname = Self.names.randomElement(using: &random)
            default: break
            }
            if Bool.random(using: &random) { gadget.level = Int.random(in: 1 ... 5, using: &random) }
            if Bool.random(using: &random) { gadget.added = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0 ... 5, using: &random))) }
            if Int.random(in: 0 ..< 3, using: &random) > 0 { gadget.maker = makers.randomElement(using: &random) }
            if Bool.random(using: &random) {
                gadget.parts = (0 ..< Int.random(in: 0 ... 3, using: &random)).compactMap { _ in makers.randomElement(using: &random) }
            }
            // A value of another type reads as the property's default.
            if Int.random(in: 0 ..< 8, using: &random) == 0 { database.set("not a number", for: gadget.path(of: .price)) }
            if Int.random(in: 0 ..< 8, using: &random) == 0 { database.set(42, for: gadget.path(of: .name)) }
            if Int.random(in: 0 ..< 10, using: &random) == 0 { database.set(7, for: gadget.path(of: .parts)) }
            if Int.random(in: 0 ..< 6, using: &random) == 0 { gadget.delete() }
        }
        return makers
    }

    private func randomLeaf(_ makers: [QMaker], _ random: inout SplitMix64, forced: Int? = nil) -> QueryFilter<QGadget> {
        let number = Int.random(in: -2 ... 12, using: &random)
        let name = Self.names.randomElement(using: &random) ?? ""
        let maker = makers.randomElement(using: &random) ?? makers[0]
        switch forced ?? Int.random(in: 0 ..< 24, using: &random) {
        case 0: return \.price == number
        case 1: return \.price != number
        case 2: return \.price < number
        case 3: return \.price <= number
        case 4: return \.price > number
        case 5: return \.price >= number
        case 6: return \.level == 3
        case 7: return \.level < Int.random(in: 1 ... 5, using: &random)
        case 8: return \.weight > Double(number) / 4
        case 9: return \.inStock == Bool.random(using: &random)
        case 10: return .hasPrefix(\.name, name)
        case 11: return .contains(\.name, String(name.prefix(1)))
        case 12: return \.name < name
        case 13: return .isIn(\.price, [number, number + 1, 5])
        case 14: return \.nickname == nil
        case 15: return \.nickname == "x"
        case 16: return \.nickname != nil
        case 17: return \.maker == maker
        case 18: return \.maker == nil
        case 19: return .references(\.parts, maker)
        case 20: return \.added >= Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0 ... 5, using: &random)))
        case 21: return \.isCheap == true
        case 22: return QueryFilter { $0.name.count == 2 }
        default: return .isIn(\.name, [name, "a"])
        }
    }

    private func randomFilter(_ makers: [QMaker], depth: Int, _ random: inout SplitMix64) -> QueryFilter<QGadget> {
        guard depth > 0, Int.random(in: 0 ..< 3, using: &random) > 0 else { return randomLeaf(makers, &random) }
        switch Int.random(in: 0 ..< 3, using: &random) {
        case 0: return randomFilter(makers, depth: depth - 1, &random) && randomFilter(makers, depth: depth - 1, &random)
        case 1: return randomFilter(makers, depth: depth - 1, &random) || randomFilter(makers, depth: depth - 1, &random)
        default: return !randomFilter(makers, depth: depth - 1, &random)
        }
    }

    /// A random query and the ids it must return, computed from the models in Swift.
    private func randomQuery(_ makers: [QMaker], in database: any Database, _ random: inout SplitMix64) -> (QueryDescriptor<QGadget>, [InstanceKey]) {
        let filter = randomFilter(makers, depth: 3, &random)
        let offset = Bool.random(using: &random) ? Int.random(in: 0 ... 10, using: &random) : 0
        let limit = Bool.random(using: &random) ? Int.random(in: 0 ... 12, using: &random) : nil
        let reverse = Bool.random(using: &random)
        let matches = database.all(of: QGadget.self).filter { filter.matches($0) }
        func ordered<Key: Comparable>(_ key: (QGadget) -> Key) -> [InstanceKey] {
            matches.map { (key: key($0), id: $0.id) }
                .sorted { lhs, rhs in
                    if lhs.key != rhs.key { return reverse ? lhs.key > rhs.key : lhs.key < rhs.key }
                    return lhs.id < rhs.id
                }
                .map(\.id)
        }
        let query: QueryDescriptor<QGadget>
        let all: [InstanceKey]
        switch Int.random(in: 0 ..< 5, using: &random) {
        case 0:
            query = QueryDescriptor(where: filter, offset: offset, limit: limit)
            all = matches.map(\.id).sorted()
        case 1:
            query = QueryDescriptor(where: filter, sortBy: \.price, reverse: reverse, offset: offset, limit: limit)
            all = ordered { $0.price }
        case 2:
            query = QueryDescriptor(where: filter, sortBy: \.name, reverse: reverse, offset: offset, limit: limit)
            all = ordered { $0.name }
        case 3:
            query = QueryDescriptor(where: filter, sortBy: \.weight, reverse: reverse, offset: offset, limit: limit)
            all = ordered { $0.weight }
        default:
            query = QueryDescriptor(where: filter, sortBy: { $0.level }, reverse: reverse, offset: offset, limit: limit)
            all = ordered { $0.level }
        }
        let start = min(offset, all.count)
        let end = limit.map { min(all.count, start + $0) } ?? all.count
        return (query, Array(all[start ..< end]))
    }

    @Test("Random filters, sorts and pages return what evaluating them on the models returns", arguments: DatabaseKind.allCases)
    func randomQueries(kind: DatabaseKind) {
        for seed in UInt64(1) ... 4 {
            let database = kind.make()
            let makers = fill(database, seed: seed)
            var random = SplitMix64(seed: seed &* 7919)
            for round in 0 ..< 150 {
                let (query, expected) = randomQuery(makers, in: database, &random)
                let found = database.fetch(query).map(\.id)
                #expect(found == expected, "seed \(seed), round \(round)")
                #expect(database.count(query) == query.predicateMatchCount(in: database))
            }
        }
    }

    @Test("Each kind of condition alone returns on SQLite what it returns on the models", arguments: 0 ..< 24)
    func eachCondition(leaf: Int) throws {
        let database = try SQLiteDatabase()
        let makers = fill(database, seed: 3)
        var random = SplitMix64(seed: 99)
        for round in 0 ..< 20 {
            let filter = randomLeaf(makers, &random, forced: leaf)
            let expected = database.all(of: QGadget.self).filter { filter.matches($0) }.map(\.id).sorted()
            #expect(database.fetch(QueryDescriptor(where: filter)).map(\.id) == expected, "leaf \(leaf) round \(round)")
        }
    }

    @Test("The same filters agree between an in-memory and an SQLite database with the same writes")
    func sameResultsAcrossDatabases() throws {
        let memory = InMemoryDatabase()
        let sqlite = try SQLiteDatabase()
        let memoryMakers = fill(memory, seed: 11)
        let sqliteMakers = fill(sqlite, seed: 11)
        var memoryRandom = SplitMix64(seed: 5)
        var sqliteRandom = SplitMix64(seed: 5)
        for _ in 0 ..< 200 {
            let (memoryQuery, _) = randomQuery(memoryMakers, in: memory, &memoryRandom)
            let (sqliteQuery, _) = randomQuery(sqliteMakers, in: sqlite, &sqliteRandom)
            #expect(memory.fetch(memoryQuery).map(\.id) == sqlite.fetch(sqliteQuery).map(\.id))
        }
    }

    @Test("Which filters run in the database")
    func runsInDatabase() {
        #expect((\QGadget.price >= 3 && .hasPrefix(\.name, "a") || !(\QGadget.maker == nil)).runsInDatabase)
        #expect((.references(\QGadget.parts, QMaker.withId(1)) && \.nickname != nil).runsInDatabase)
        #expect(!(\QGadget.isCheap == true).runsInDatabase)
        #expect(!(QueryFilter<QGadget> { $0.price > 1 }).runsInDatabase)
        #expect(!(\QGadget.price > 1 || QueryFilter { $0.price < 0 }).runsInDatabase)
    }

    @Test("A filter that runs partly in SQL still applies its in-memory part before paging")
    func partialPushdown() throws {
        let database = try SQLiteDatabase()
        for id in 0 ..< 20 { QGadget.create(in: database, id: id, name: "g\(id)", price: id) }
        let query = QueryDescriptor<QGadget>(where: \.price >= 5 && QueryFilter { $0.price % 2 == 0 }, sortBy: \.price, reverse: true, offset: 1, limit: 3)
        #expect(database.fetch(query).map(\.price) == [16, 14, 12])
        #expect(database.count(query) == 7)
    }

    @Test("Inverse relationships: referrers through a reference and through a list, on every database", arguments: DatabaseKind.allCases)
    func inverse(kind: DatabaseKind) {
        let database = kind.make()
        let acme = QMaker.create(in: database, id: 1, name: "Acme")
        let bolt = QMaker.create(in: database, id: 2, name: "Bolt")
        let first = QGadget.create(in: database, id: 10, maker: acme, parts: [bolt, acme, bolt])
        let second = QGadget.create(in: database, id: 11, maker: acme, parts: [bolt])
        let third = QGadget.create(in: database, id: 12, maker: bolt)
        #expect(acme.referrers(through: \QGadget.maker).map(\.id) == [10, 11])
        #expect(bolt.referrers(through: \QGadget.maker).map(\.id) == [12])
        #expect(bolt.referrers(through: \QGadget.parts).map(\.id) == [10, 11])
        #expect(acme.referrers(through: \QGadget.parts).map(\.id) == [10])

        first.parts = [acme]
        second.maker = nil
        third.parts = [bolt, bolt]
        #expect(bolt.referrers(through: \QGadget.parts).map(\.id) == [11, 12])
        #expect(acme.referrers(through: \QGadget.maker).map(\.id) == [10])
        // A list replaced by a value of another type reads as empty.
        database.set("no list", for: third.path(of: .parts))
        #expect(bolt.referrers(through: \QGadget.parts).map(\.id) == [11])
        // Deleted referrers are not listed.
        first.delete()
        #expect(acme.referrers(through: \QGadget.parts).isEmpty)
        #expect(acme.referrers(through: \QGadget.maker).isEmpty)
    }

    @Test("Inverse lookups survive closing and reopening a file")
    func inversePersists() throws {
        let path = SQLiteTestFiles.newPath()
        do {
            let database = try SQLiteDatabase(path: path)
            let acme = QMaker.create(in: database, id: 1, name: "Acme")
            try database.batch {
                for id in 0 ..< 50 { QGadget.create(in: database, id: id, maker: id % 5 == 0 ? acme : nil, parts: id % 7 == 0 ? [acme] : []) }
            }
            database.close()
        }
        let reopened = try SQLiteDatabase(path: path)
        let acme = try #require(reopened.active(id: 1, of: QMaker.self))
        #expect(acme.referrers(through: \QGadget.maker).map(\.id) == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45])
        #expect(acme.referrers(through: \QGadget.parts).map(\.id) == [0, 7, 14, 21, 28, 35, 42, 49])
    }

    @Test("SQLite queries see statuses after rolled-back batches, savepoints and other connections' writes")
    func statusesStayExact() throws {
        let path = SQLiteTestFiles.newPath()
        let database = try SQLiteDatabase(path: path)
        for id in 0 ..< 10 { QGadget.create(in: database, id: id, price: 5) }
        let query = QueryDescriptor<QGadget>(where: \.price == 5)
        #expect(database.fetch(query).map(\.id) == Array(0 ..< 10))

        // A batch that deletes, creates, then fails: nothing of it shows.
        #expect(throws: TestFailure.self) {
            try database.batch {
                QGadget(database: database, id: 3).delete()
                QGadget.create(in: database, id: 20, price: 5)
                throw TestFailure()
            }
        }
        #expect(database.fetch(query).map(\.id) == Array(0 ..< 10))

        // A nested batch that fails inside one that commits.
        try database.batch {
            QGadget(database: database, id: 4).delete()
            try? database.batch {
                QGadget(database: database, id: 5).delete()
                throw TestFailure()
            }
        }
        #expect(database.fetch(query).map(\.id) == [0, 1, 2, 3, 5, 6, 7, 8, 9])

        // Another connection to the file deletes and restores.
        let other = try SQLiteDatabase(path: path)
        QGadget(database: other, id: 0).delete()
        QGadget(database: other, id: 4).insert()
        #expect(database.fetch(query).map(\.id) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(database.fetch(QueryDescriptor<QGadget>(where: \.price == 5, offset: 2, limit: 3)).map(\.id) == [3, 4, 5])

        // Values of an instance that was never created don't make it match.
        database.set(5, for: Path(model: QGadget.modelId, instance: 77, property: QGadget.PropertyId.price.rawValue))
        #expect(!database.fetch(query).map(\.id).contains(77))
    }

    @Test("A live query over SQLite with a pushed-down filter follows changes")
    func liveOverSQLite() throws {
        let database = ObservableDatabase(wrapping: try SQLiteDatabase())
        for id in 0 ..< 30 { QGadget.create(in: database, id: id, name: "g\(id)", price: id % 10) }
        let live = LiveQuery(QueryDescriptor<QGadget>(where: \.price >= 8, sortBy: \.name, limit: 4), in: database)
        #expect(live.results.map(\.id) == [18, 19, 28, 29])
        #expect(live.matchCount == 6)
        database.get(id: 18, of: QGadget.self)?.price = 1
        database.get(id: 3, of: QGadget.self)?.price = 9
        QGadget.create(in: database, id: 100, name: "a", price: 8)
        #expect(live.results.map(\.id) == [100, 19, 28, 29])
        #expect(live.results.map(\.id) == database.fetch(live.query).map(\.id))
        database.get(id: 100, of: QGadget.self)?.delete()
        #expect(live.results.map(\.id) == [19, 28, 29, 3])
    }
}

extension QueryDescriptor {
    /// The number of active instances the filter matches, counted on the models.
    func predicateMatchCount(in database: any Database) -> Int {
        database.all(of: Model.self).filter { predicate.matches($0) }.count
    }
}

extension QMaker {
    static func withId(_ id: InstanceKey) -> QMaker { QMaker(database: InMemoryDatabase(), id: id) }
}

private struct TestFailure: Error {}
