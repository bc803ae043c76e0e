import Foundation
import GRDB

/// The baseline for the `sqlite.objects-*` lines: a hand-written GRDB record with a fixed
/// three-column schema, the way an app would write it without Pathbase. Its row coding is
/// written out by hand (no `Codable`), GRDB's fastest record path.
struct BenchRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "bench_row"
    var id: Int
    var count: Int
    var name: String
    var score: Double

    init(id: Int, count: Int, name: String, score: Double) {
        self.id = id
        self.count = count
        self.name = name
        self.score = score
    }

    init(row: Row) {
        id = row[0]
        count = row[1]
        name = row[2]
        score = row[3]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["count"] = count
        container["name"] = name
        container["score"] = score
    }
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

    /// Inserts one row per id in one transaction, then reads each back by its id.
    func createThenReadEach(ids: Range<Int>, names: [String]) throws -> Int {
        try queue.write { db in
            for id in ids {
                try BenchRow(id: id, count: id, name: names[id % names.count], score: Double(id)).insert(db)
            }
        }
        return try queue.read { db in
            var total = 0
            for id in ids {
                guard let row = try BenchRow.fetchOne(db, key: id) else { continue }
                total &+= row.count &+ row.name.utf8.count &+ Int(row.score)
            }
            return total
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
