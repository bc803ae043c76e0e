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

    @Test("A declared index created inside a batch that rolls back is gone; queries still answer, and declaring it again creates it")
    func anIndexRolledBackWithItsBatchIsCreatedAgain() throws {
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
        // Without its index the query still answers exactly (by a scan of the model).
        try accounts.save(Account(id: 2, email: "kept@example.com", balance: 2))
        #expect(try accounts.fetch(where: \.email == "kept@example.com").map(\.id) == [2])
        // The collection opened again declares it again: created, and the query uses it.
        let again = database.collection(Account.self, name: "accounts", indexes: [\.email])
        try again.save(Account(id: 3, email: "more@example.com", balance: 3))
        #expect(try indexes().count == 1)
        let plan = try database.queryPlan(of: again.modelKey, where: again.storedPredicate(for: \.email == "more@example.com"), sortedBy: nil)
        #expect(plan.first?.contains("value_index_") == true, "\(plan)")
        #expect(try again.fetch(where: \.email == "more@example.com").map(\.id) == [3])
        database.close()
    }
}
