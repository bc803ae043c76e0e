import Foundation
import GRDB
import GRDBSQLite
import Pathbase
import PathbaseSQLite

/// The struct of the collection benchmark, stored by Pathbase and, the same, by GRDB.
struct BenchUser: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bench_user"
    var id: Int
    var name: String
    var category: Int
    var score: Double
}

/// `pathbase-bench collections`: Codable collections on a WAL file against a GRDB `Codable`
/// record of the same rows, raw SQL with an index, and themselves at 10^4 rows.
enum CollectionBenchmark {

    /// Rows of the growth line; `PATHBASE_BENCH_GROWTH_ROWS` sets another count for quick runs.
    static let growthRows = BenchScale.count(
        ProcessInfo.processInfo.environment["PATHBASE_BENCH_GROWTH_ROWS"].flatMap(Int.init) ?? 1_000_000,
        smoke: 200
    )

    private static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-collections")

    static func run() throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Each line's set-up runs only when the line does (`PATHBASE_BENCH_ONLY`).
        if BenchScale.runs("collections.save") { try saveLine() }
        if BenchScale.runs("collections.fetch-all") || BenchScale.runs("collections.fetch-id") { try fetchLines() }
        if BenchScale.runs("collections.indexed-query") { try indexedQueryLine() }
        if BenchScale.runs("collections.growth") { try growthLine() }
    }

    /// Structs per batched save and per fetch.
    private static let batch = BenchScale.count(10_000, smoke: 20)

    private static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    private static func users(_ range: Range<Int>) -> [BenchUser] {
        range.map { BenchUser(id: $0, name: "user \($0)", category: $0 % 10_000, score: Double($0) / 3) }
    }

    /// Save 10^4 new structs in one batch, against GRDB inserting the same rows.
    private static func saveLine() throws {
        let saving = try SQLiteDatabase(path: path("save.sqlite")).collection(BenchUser.self)
        let grdb = try grdbQueue(path: path("save-grdb.sqlite"))
        var round = 0, grdbRound = 0
        compare(
            "collections.save-vs-grdb", operations: batch, rounds: 5, goal: 1.5,
            {
                round += 1
                must { try saving.save(users(round * batch ..< (round + 1) * batch)) }
            },
            baseline: {
                grdbRound += 1
                let rows = users(grdbRound * batch ..< (grdbRound + 1) * batch)
                must { try grdb.write { db in for row in rows { try row.insert(db) } } }
            })
    }

    /// Fetch all 10^4, against GRDB's fetchAll; then one struct by id.
    private static func fetchLines() throws {
        let fetching = try SQLiteDatabase(path: path("fetch.sqlite")).collection(BenchUser.self)
        try fetching.save(users(0 ..< batch))
        let grdbFetching = try grdbQueue(path: path("fetch-grdb.sqlite"))
        try grdbFetching.write { db in for row in users(0 ..< batch) { try row.insert(db) } }
        compare(
            "collections.fetch-all-vs-grdb", operations: batch, rounds: 5, goal: 1.5,
            {
                must { blackHole(try fetching.fetch()) }
            },
            baseline: {
                must { blackHole(try grdbFetching.read { db in try BenchUser.fetchAll(db) }) }
            })
        // One struct by id, each in its own read, random order (no goal in issue 14).
        let order = (0 ..< batch).shuffled()
        compare(
            "collections.fetch-id-vs-grdb", operations: batch, rounds: 3,
            {
                for id in order { must { blackHole(try fetching.fetch(id: id)) } }
            },
            baseline: {
                for id in order { must { blackHole(try grdbFetching.read { db in try BenchUser.fetchOne(db, key: id) }) } }
            })
    }

    /// An indexed equality query on 10^5 rows (10 matches each), against raw SQL with an index.
    private static func indexedQueryLine() throws {
        let queried = try SQLiteDatabase(path: path("query.sqlite")).collection(BenchUser.self, indexes: [\.category])
        let many = users(0 ..< BenchScale.count(100_000, smoke: 200))
        for start in stride(from: 0, to: many.count, by: 10_000) {
            try queried.save(Array(many[start ..< min(many.count, start + 10_000)]))
        }
        let raw = RawUserTable(path: path("query-raw.sqlite"), rows: many)
        let queries = BenchScale.count(2000, smoke: 10)
        compare(
            "collections.indexed-query-vs-raw", operations: queries, rounds: 5, goal: 2.0,
            {
                for step in 0 ..< queries { must { blackHole(try queried.fetch(where: \.category == (step * 37) % 10_000)) } }
            },
            baseline: {
                for step in 0 ..< queries { blackHole(raw.users(category: (step * 37) % 10_000)) }
            })
    }

    /// A batched save of 10^4 at 10^6 stored rows, against the same at 10^4.
    private static func growthLine() throws {
        let small = try SQLiteDatabase(path: path("growth-small.sqlite")).collection(BenchUser.self)
        try small.save(users(0 ..< batch))
        let large = try SQLiteDatabase(path: path("growth-large.sqlite")).collection(BenchUser.self)
        for start in stride(from: 0, to: growthRows, by: 100_000) {
            try large.save(users(start ..< min(growthRows, start + 100_000)))
        }
        var smallNext = batch, largeNext = growthRows
        compare(
            "collections.growth", operations: batch, rounds: 3, goal: 1.3,
            {
                must { try large.save(users(largeNext ..< largeNext + batch)) }
                largeNext += batch
            },
            baseline: {
                must { try small.save(users(smallNext ..< smallNext + batch)) }
                smallNext += batch
            })
    }

    /// A GRDB WAL file with the `bench_user` table.
    private static func grdbQueue(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.create(table: BenchUser.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("category", .integer).notNull()
                table.column("score", .double).notNull()
            }
        }
        return queue
    }

    /// Runs a step of a measured block; a failure ends the benchmark with its error.
    private static func must(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            print("collections benchmark failed: \(error)")
            exit(1)
        }
    }
}

/// The raw baseline of the indexed query: a fixed-schema table with an index on category,
/// read into structs with a cached prepared statement.
final class RawUserTable {
    private var handle: OpaquePointer?
    private var byCategory: OpaquePointer?

    init(path: String, rows: [BenchUser]) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_exec(
            handle,
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category INTEGER NOT NULL, score REAL NOT NULL);
            CREATE INDEX users_by_category ON users(category);
            BEGIN;
            """, nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO users(id, name, category, score) VALUES (?, ?, ?, ?)", -1, &insert, nil)
        for row in rows {
            sqlite3_bind_int64(insert, 1, Int64(row.id))
            sqlite3_bind_text(insert, 2, row.name, -1, transient)
            sqlite3_bind_int64(insert, 3, Int64(row.category))
            sqlite3_bind_double(insert, 4, row.score)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        sqlite3_prepare_v3(handle, "SELECT id, name, category, score FROM users WHERE category = ? ORDER BY id", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &byCategory, nil)
    }

    deinit {
        sqlite3_finalize(byCategory)
        sqlite3_close_v2(handle)
    }

    func users(category: Int) -> [BenchUser] {
        sqlite3_bind_int64(byCategory, 1, Int64(category))
        var users: [BenchUser] = []
        while sqlite3_step(byCategory) == SQLITE_ROW {
            users.append(
                BenchUser(
                    id: Int(sqlite3_column_int64(byCategory, 0)),
                    name: String(cString: sqlite3_column_text(byCategory, 1)),
                    category: Int(sqlite3_column_int64(byCategory, 2)),
                    score: sqlite3_column_double(byCategory, 3)
                ))
        }
        sqlite3_reset(byCategory)
        return users
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bound text.
    private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
