import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

private struct Account: Codable, Identifiable {
    var id: Int
    var email: String
    var balance: Double
}

@Suite("Codable collections: declared indexes in SQLite")
struct CollectionIndexTests {

    @Test
    func aDeclaredIndexIsARealIndexTheQueryUses() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("collection-index-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try SQLiteDatabase(path: path)
        let accounts = database.collection(Account.self, name: "accounts", indexes: [\.email])
        try accounts.save((0 ..< 200).map { Account(id: $0, email: "user\($0)@example.com", balance: Double($0)) })
        let filter: CollectionFilter<Account> = \.email == "user42@example.com"
        let plan = try database.queryPlan(of: accounts.modelKey, where: accounts.storedPredicate(for: filter), sortedBy: nil)
        #expect(plan.contains { $0.contains("value_index_\(accounts.modelKey)_") }, "\(plan)")
        #expect(try accounts.fetch(where: filter).map(\.id) == [42])
        // Unindexed fields still query correctly.
        #expect(try accounts.fetch(where: \.balance >= 198).map(\.id) == [198, 199])
    }

    @Test("A declared index holds the bodies: a query reads its matches from the index alone; a plain index of the same field, made for a query before, is made again covering")
    func aDeclaredIndexCovers() throws {
        let database = try SQLiteDatabase()
        let plain = database.collection(Account.self, name: "accounts")
        try plain.save((0 ..< 50).map { Account(id: $0, email: "user\($0)@example.com", balance: Double($0)) })
        let predicate = plain.storedPredicate(for: \.email == "user7@example.com")
        // The index made for a query (outside a transaction) holds no bodies.
        let before = try database.queryPlan(of: plain.modelKey, where: predicate, sortedBy: nil, readingValues: true)
        #expect(before.contains { $0.contains("USING INDEX value_index_\(plain.modelKey)_") }, "\(before)")

        let declared = database.collection(Account.self, name: "accounts", indexes: [\.email])
        try declared.save(Account(id: 50, email: "user50@example.com", balance: 50))
        let after = try database.queryPlan(of: declared.modelKey, where: predicate, sortedBy: nil, readingValues: true)
        #expect(after.contains { $0.contains("USING COVERING INDEX value_index_\(declared.modelKey)_") }, "\(after)")
        #expect(try declared.fetch(where: \.email == "user7@example.com").map(\.balance) == [7])
        #expect(try declared.fetch(where: \.email == "user50@example.com").map(\.id) == [50])
        // A write changes what the index holds.
        try declared.save(Account(id: 7, email: "user7@example.com", balance: 70))
        #expect(try declared.fetch(where: \.email == "user7@example.com").map(\.balance) == [70])
        // One index for the field: the plain one was replaced.
        let indexes = try database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'value_index_%'", bind: { _ in }, row: { $0.string(at: 0) })
        #expect(indexes.count == 1)
    }

    @Test(
        "A collection first saved inside a batch that rolls back: its catalog entry and index are gone with it; its next save registers the name and creates the index again, and queries answer in between"
    )
    func aRegistrationRolledBackWithItsBatchIsMadeAgain() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("collection-index-rollback-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path)
        let accounts = database.collection(Account.self, name: "accounts", indexes: [\.email])
        #expect(throws: TestError.self) {
            try database.batch {
                try accounts.save(Account(id: 1, email: "gone@example.com", balance: 1))
                throw TestError()
            }
        }
        let indexes = { () throws -> [String] in
            try database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'value_index_%'", bind: { _ in }, row: { $0.string(at: 0) })
        }
        #expect(try indexes().isEmpty)
        #expect(database.collectionSummaries().isEmpty)
        // Without its index the query still answers exactly (by a scan of the model).
        #expect(try accounts.fetch(where: \.email == "gone@example.com").isEmpty)
        // The same collection's next save registers the name and creates the index again.
        try accounts.save(Account(id: 2, email: "kept@example.com", balance: 2))
        #expect(database.collectionSummaries().map(\.name) == ["accounts"])
        #expect(try indexes().count == 1)
        let plan = try database.queryPlan(of: accounts.modelKey, where: accounts.storedPredicate(for: \.email == "kept@example.com"), sortedBy: nil)
        #expect(plan.first?.contains("value_index_") == true, "\(plan)")
        #expect(try accounts.fetch(where: \.email == "kept@example.com").map(\.id) == [2])
        database.close()

        // And it stays registered in the file.
        let reopened = try SQLiteDatabase(path: path)
        #expect(reopened.collectionSummaries().map(\.name) == ["accounts"])
        #expect(try reopened.collection(Account.self, name: "accounts").fetch().map(\.id) == [2])
        reopened.close()
    }
}
