import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 2000–2019.

private struct ShippingAddress: Codable, Equatable {
    var street: String
    var number: Int
}

@Model(id: 2000)
private final class Customer {
    @Property(id: 1) var name: String
    @Property(id: 2) var vip: Bool
    @Property(id: 3) var balance: Double
    @Property(id: 4) var address: ShippingAddress = ShippingAddress(street: "", number: 0)
    @Property(id: 5) var nickname: String? = "none yet"
    @Property(id: 6) var level: Int8
    @Reference(id: 7) var referrer: Customer?
    @ReferenceList(id: 8) var friends: [Customer]
}

@Suite("Export and import of records")
struct ExportImportTests {

    /// Fills a database with every kind of value, references, lists and a deleted instance.
    private func fill(_ database: any HistoryDatabase) {
        let ada = Customer.create(in: database, id: 1, name: "Ada", vip: true, balance: 12.5, level: -3)
        ada.address = ShippingAddress(street: "Main", number: 7)
        ada.nickname = nil
        let bob = Customer.create(in: database, id: 2, name: "Bob", referrer: ada)
        bob.name = "Robert"
        ada.friends = [bob]
        let gone = Customer.create(in: database, id: 3, name: "Gone")
        gone.delete()
    }

    private func expectSameState(_ database: any Database) {
        let ada: Customer? = database.get(id: 1)
        #expect(ada?.name == "Ada")
        #expect(ada?.vip == true)
        #expect(ada?.balance == 12.5)
        #expect(ada?.level == -3)
        #expect(ada?.address == ShippingAddress(street: "Main", number: 7))
        #expect(ada?.nickname == nil, "an explicit nil stays nil, not the default")
        #expect(ada?.friends.map(\.name) == ["Robert"])
        let bob: Customer? = database.get(id: 2)
        #expect(bob?.referrer?.name == "Ada")
        #expect(bob?.nickname == "none yet", "never written: the default")
        #expect(database.get(id: 3, of: Customer.self)?.status == .deleted)
        #expect(Set(database.all(of: Customer.self).map(\.id)) == [1, 2])
    }

    /// Every kind but the hand-written databases (the seed's and the README's): a custom database returns an
    /// imported `Codable` struct as the `EncodedValue` it stored, which does not cast to the
    /// struct (Pathbase's own databases decode it), so the struct would read as its default.
    @Test("An export imported into every kind of database rebuilds the same state", arguments: DatabaseKind.allCases.filter { $0.backend != .minimal && $0.backend != .readmeMinimal })
    func roundTrip(target: DatabaseKind) throws {
        let source = InMemoryHistoryDatabase()
        fill(source)
        let data = try source.exportRecords()
        let database = target.make()
        try database.importRecords(from: data)
        expectSameState(database)
    }

    @Test("An SQLite file exports what an in-memory database imports, history included")
    func fromSQLite() throws {
        let source = try SQLiteDatabase()
        fill(source)
        let target = InMemoryHistoryDatabase()
        try target.importRecords(from: source.exportRecords())
        expectSameState(target)
        #expect(target.records(after: nil).count == source.records(after: nil).count)
        #expect(target.history(of: Path(model: 2000, instance: 2, property: 1), as: String.self).map(\.value) == ["Bob", "Robert"])
    }

    @Test("Importing twice changes nothing", arguments: HistoryDatabaseKind.allCases)
    func idempotent(kind: HistoryDatabaseKind) throws {
        let source = InMemoryHistoryDatabase()
        fill(source)
        let data = try source.exportRecords()
        let target = kind.make()
        try target.importRecords(from: data)
        let once = target.records(after: nil).map { "\($0.path) \($0.timestamp)" }
        try target.importRecords(from: data)
        #expect(target.records(after: nil).map { "\($0.path) \($0.timestamp)" } == once)
        expectSameState(target)
    }

    @Test("Only records after a timestamp are exported")
    func afterTimestamp() throws {
        let source = InMemoryHistoryDatabase()
        fill(source)
        let cut = source.clock.now()
        let carol = Customer.create(in: source, id: 4, name: "Carol")
        let records = try RecordArchive.decode(source.exportRecords(after: cut))
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { $0.path.instance == carol.id && $0.timestamp > cut })
    }

    @Test("A malformed, truncated or newer export throws and changes nothing", arguments: DatabaseKind.allCases)
    func badInput(target: DatabaseKind) throws {
        let source = InMemoryHistoryDatabase()
        fill(source)
        let data = try source.exportRecords()
        let database = target.make()
        let kept = Customer.create(in: database, id: 9, name: "Kept")
        let newer = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"version\":1", with: "\"version\":99").utf8)
        let wrongType = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"type\":\"String\"", with: "\"type\":\"Bool\"").utf8)
        let cases: [(Data, String, expectedCase: String)] = [
            (Data("not json".utf8), "text", "malformed"),
            (data.prefix(data.count / 2), "truncated", "malformed"),
            (Data("{\"format\":\"other\",\"version\":1,\"records\":[]}".utf8), "another format", "malformed"),
            (newer, "newer version", "newerVersion"),
            (wrongType, "a value that is not its declared type", "invalidValue")
        ]
        for (bad, label, expectedCase) in cases {
            let error = #expect(throws: RecordArchiveError.self, "\(label)") { try database.importRecords(from: bad) }
            #expect(errorCase(of: error) == expectedCase, "\(label): \(String(describing: error))")
        }
        #expect(database.all(of: Customer.self).map(\.id) == [9])
        #expect(kept.name == "Kept")
        #expect(throws: RecordArchiveError.newerVersion(found: 99, supported: RecordArchive.version)) {
            try RecordArchive.decode(newer)
        }
    }
}
