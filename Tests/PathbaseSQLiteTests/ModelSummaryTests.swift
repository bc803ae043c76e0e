import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

/// `modelSummaries()` (what `pathbase inspect` and Studio's overview show) answers from
/// memory once counted, and never with a number the file no longer holds.
@Suite("Model summaries: counted once, never stale")
struct ModelSummaryTests {

    private func summary(_ database: SQLiteDatabase) throws -> [ModelKey: [Int]] {
        Dictionary(uniqueKeysWithValues: try database.modelSummaries().map { ($0.model, [$0.created, $0.deleted]) })
    }

    @Test("counts per model; a write of this connection, a rolled-back batch, another connection's commit and a read-only reader all see the file's numbers")
    func countsFollowTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/summaries.sqlite"
        let database = try SQLiteDatabase(path: path)
        for id in 1 ... 3 { Item.create(in: database, id: id, title: "item \(id)", count: id) }
        Item.create(in: database, id: 4, title: "gone", count: 0).delete()
        #expect(try summary(database) == [Item.modelId: [3, 1]])
        #expect(try summary(database) == [Item.modelId: [3, 1]])

        // This connection's own writes.
        Item.create(in: database, id: 5, title: "five", count: 5)
        #expect(try summary(database) == [Item.modelId: [4, 1]])
        database.get(id: 1, of: Item.self)?.delete()
        #expect(try summary(database) == [Item.modelId: [3, 2]])

        // A batch that throws after counting inside it: its instance is gone, and so is its count.
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try database.batch {
                Item.create(in: database, id: 6, title: "six", count: 6)
                #expect(try summary(database) == [Item.modelId: [4, 2]])
                throw Abandon()
            }
        }
        #expect(try summary(database) == [Item.modelId: [3, 2]])

        // Another connection (another process would do the same) and a read-only reader.
        let reader = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        #expect(try summary(reader) == [Item.modelId: [3, 2]])
        let other = try SQLiteDatabase(path: path)
        other.get(id: 2, of: Item.self)?.delete()
        Item.create(in: other, id: 7, title: "seven", count: 7)
        Item.create(in: other, id: 8, title: "eight", count: 8)
        #expect(try summary(database) == [Item.modelId: [4, 3]])
        #expect(try summary(reader) == [Item.modelId: [4, 3]])
    }
}
