import Foundation
import Pathbase
import PathbaseSQLite
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
}
