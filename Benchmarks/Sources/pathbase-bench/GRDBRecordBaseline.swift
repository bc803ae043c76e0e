import Foundation
import GRDB

/// The baseline for `sqlite.objects-vs-grdb-record`: a hand-written GRDB record with a
/// fixed three-column schema, the way an app would write it without Pathbase.
struct BenchRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bench_row"
    var id: Int
    var count: Int
    var name: String
    var score: Double
}

/// A WAL file holding `BenchRow`s.
final class GRDBRecordBaseline {
    let queue: DatabaseQueue

    init(path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.create(table: BenchRow.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("count", .integer).notNull()
                table.column("name", .text).notNull()
                table.column("score", .double).notNull()
            }
        }
    }

    /// Inserts (or replaces) every row in one transaction, then reads them all back.
    func createThenReadAll(count: Int, names: [String]) throws -> [BenchRow] {
        try queue.write { db in
            for index in 0 ..< count {
                try BenchRow(id: index, count: index, name: names[index], score: Double(index)).save(db)
            }
        }
        return try queue.read { db in try BenchRow.fetchAll(db) }
    }
}
