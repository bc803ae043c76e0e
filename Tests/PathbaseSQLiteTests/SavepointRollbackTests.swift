import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// A nested batch that throws after its writes reached the file (a read inside it writes
/// the pending ones first) must take them back with `ROLLBACK TO`: forgetting the pending
/// writes in memory is not enough (found by `scripts/mutants`, sqlite-savepoint-not-rolled-back:
/// the nested-batch test only threw while its writes were still pending).
@Suite("SQLiteDatabase: a failed nested batch rolls back what it wrote to the file")
struct SavepointRollbackTests {

    @Test("a nested batch that read its own writes, then threw: they are gone after the outer commit, also after reopening")
    func writtenRowsRollBack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            Item.create(in: database, id: 1, title: "before")
            try database.batch {
                Item.create(in: database, id: 2, title: "outer")
                do {
                    try database.batch {
                        Item.create(in: database, id: 3, title: "failing inner")
                        database.get(id: 1, of: Item.self)?.title = "changed by the failing inner"
                        // Listing reads the file: the pending writes are written to it first.
                        #expect(database.all(of: Item.self).count == 3)
                        throw TestError()
                    }
                } catch is TestError {}
                // Inside the outer batch, the inner writes are already gone.
                #expect(database.get(id: 3, of: Item.self) == nil)
                #expect(database.get(id: 1, of: Item.self)?.title == "before")
            }
            #expect(database.all(of: Item.self).map(\.id).sorted() == [1, 2])
            #expect(database.get(id: 1, of: Item.self)?.title == "before")
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(reopened.all(of: Item.self).map(\.id).sorted() == [1, 2])
        #expect(reopened.get(id: 3, of: Item.self) == nil)
        #expect(reopened.get(id: 1, of: Item.self)?.title == "before")
        let titles = reopened.records(after: nil).compactMap { $0.value as? String }
        #expect(!titles.contains("failing inner") && !titles.contains("changed by the failing inner"), "\(titles)")
    }
}
