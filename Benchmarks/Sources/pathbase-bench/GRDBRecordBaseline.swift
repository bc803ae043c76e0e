import Foundation
import GRDB

/// The baseline row of the object lines: a hand-written GRDB record with a fixed
/// five-column schema, the way an app would write it without Pathbase. Its row coding is
/// written out by hand (no `Codable`), GRDB's fastest record path.
struct BenchRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "bench_row"
    var id: Int
    var count: Int
    var name: String
    var score: Double
    var flag: Bool
    var note: String

    /// The row holding what `BenchObject` number `id` holds in the object lines.
    init(id: Int, names: [String]) {
        self.id = id
        count = id
        name = names[id % names.count]
        score = Double(id)
        flag = id % 2 == 0
        note = names[(id &+ 1) % names.count]
    }

    init(row: Row) {
        id = row[0]
        count = row[1]
        name = row[2]
        score = row[3]
        flag = row[4]
        note = row[5]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["count"] = count
        container["name"] = name
        container["score"] = score
        container["flag"] = flag
        container["note"] = note
    }

    var checksum: Int {
        count &+ name.utf8.count &+ Int(score) &+ (flag ? 1 : 0) &+ note.utf8.count
    }
}

/// A WAL file holding `BenchRow`s (`synchronous = NORMAL`, like `SQLiteDatabase`), and
/// optionally a history table: every version of every row, by (id, time).
final class GRDBRecordBaseline {
    let queue: DatabaseQueue
    let path: String

    init(path: String, history: Bool = false) throws {
        self.path = path
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
                table.column("flag", .boolean).notNull()
                table.column("note", .text).notNull()
            }
            if history {
                try db.execute(
                    sql: """
                        CREATE TABLE bench_row_history (
                            id INTEGER NOT NULL, time INTEGER NOT NULL,
                            count INTEGER NOT NULL, name TEXT NOT NULL, score DOUBLE NOT NULL,
                            flag BOOLEAN NOT NULL, note TEXT NOT NULL,
                            PRIMARY KEY (id, time)
                        ) WITHOUT ROWID
                        """)
            }
        }
    }

    /// Inserts one row in its own transaction.
    func insert(_ row: BenchRow) throws {
        try queue.write { db in try row.insert(db) }
    }

    /// Inserts one row and its first version in history, in one transaction.
    func insertWithHistory(_ row: BenchRow, time: Int64) throws {
        try queue.write { db in
            try row.insert(db)
            try db.execute(
                sql: "INSERT INTO bench_row_history(id, time, count, name, score, flag, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [row.id, time, row.count, row.name, row.score, row.flag, row.note]
            )
        }
    }

    /// Inserts rows in one transaction (to fill the file before the reading lines).
    func insertAll(_ rows: [BenchRow]) throws {
        try queue.write { db in
            for row in rows { try row.insert(db) }
        }
    }

    /// Reads one row by its id in its own read transaction.
    func read(id: Int) throws -> BenchRow? {
        try queue.read { db in try BenchRow.fetchOne(db, key: id) }
    }

    /// Reads every row, in one read transaction.
    func readAll() throws -> [BenchRow] {
        try queue.read { db in try BenchRow.fetchAll(db) }
    }

    /// The file's size once its WAL is checkpointed into it.
    func fileBytes() throws -> Int {
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return fileSize(path)
    }
}

/// The size of a file in bytes (0 if it is missing).
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}
