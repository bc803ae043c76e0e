import Foundation
import GRDBSQLite
import Pathbase
import PathbaseSQLite

/// The owner every `QueryItem` references, for the inverse lookup.
@Model(id: 20)
final class QueryOwner {
    @Property(id: 1)
    var name: String
}

/// The model of the query benchmark: a category (1000 values: a filter on one is 0.1%
/// selective), a name to sort by, a rank, and a reference to one of 10^5 owners.
@Model(id: 21)
final class QueryItem {
    @Property(id: 1)
    var category: Int

    @Property(id: 2)
    var name: String

    @Property(id: 3)
    var rank: Int

    @Reference(id: 4)
    var owner: QueryOwner?
}

/// `pathbase-bench query`: filters, sorts and inverse lookups run in SQL, against a closure
/// filter, raw SQLite on a fixed-schema table, and re-running a query.
enum QueryBenchmark {

    /// 10^6; `PATHBASE_BENCH_QUERY_ITEMS` sets another count for quick runs while tuning.
    static let itemCount = ProcessInfo.processInfo.environment["PATHBASE_BENCH_QUERY_ITEMS"].flatMap(Int.init) ?? 1_000_000
    static var ownerCount: Int { max(1, itemCount / 10) }
    static let categoryCount = 1000

    private static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-query")

    static func run() throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let names = (0 ..< itemCount).map { "item \(($0 &* 7919) % itemCount)" }
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("query.sqlite").path)
        try database.batch {
            let owners = (0 ..< ownerCount).map { QueryOwner.create(in: database, id: $0, name: "owner \($0)") }
            for index in 0 ..< itemCount {
                QueryItem.create(in: database, id: index, category: index % categoryCount, name: names[index], rank: index, owner: owners[index % ownerCount])
            }
        }
        let raw = RawItemTable(path: directory.appendingPathComponent("raw.sqlite").path, names: names, categoryCount: categoryCount, ownerCount: ownerCount)

        func query(_ category: Int) -> QueryDescriptor<QueryItem> {
            QueryDescriptor(where: \.category == category, sortBy: \.name, limit: 50)
        }

        // 0.1% of 10^6 instances, sorted, first 50 — against a closure filter over all().
        var category = 0
        compare(
            "query.filter-pushdown", operations: 1, rounds: 2,
            {
                category = (category + 37) % categoryCount
                blackHole(database.fetch(query(category)))
            },
            baseline: {
                category = (category + 37) % categoryCount
                let matches = database.all(of: QueryItem.self).filter { $0.category == category }
                blackHole(matches.map { ($0, $0.name) }.sorted { $0.1 < $1.1 }.prefix(50))
            })

        // The same query against raw C on a fixed-schema table with an index on category.
        let queries = 2000
        compare(
            "query.filter-vs-raw", operations: queries, rounds: 5,
            {
                for step in 0 ..< queries { blackHole(database.fetch(query((step * 37) % categoryCount))) }
            },
            baseline: {
                for step in 0 ..< queries { blackHole(raw.query(category: (step * 37) % categoryCount, limit: 50)) }
            })

        // A live query of 10^5 results absorbing one change, against running it again.
        let observed = ObservableDatabase(wrapping: database)
        let large = QueryDescriptor<QueryItem>(where: \.category < 100, sortBy: \.name)
        let live = LiveQuery(large, in: observed)
        guard live.matchCount == itemCount / 10 else {
            throw BenchmarkError.unexpected("live query has \(live.matchCount) results")
        }
        var edited = 0
        func edit() {
            edited = (edited + 1013) % itemCount
            QueryItem(database: observed, id: edited).name = "renamed \(edited)"
        }
        let changes = 200
        compare(
            "query.live-update", operations: changes, rounds: 3,
            {
                for _ in 0 ..< changes {
                    edit()
                    blackHole(live.matchCount)
                }
            },
            baseline: {
                for _ in 0 ..< changes / 20 {
                    edit()
                    blackHole(observed.fetch(large))
                }
            }, baselineOperations: changes / 20)

        // Which of 10^6 items reference an owner (10 each), against a raw indexed lookup.
        let lookups = 20_000
        compare(
            "query.inverse", operations: lookups, rounds: 5, goal: 2.0,
            {
                for step in 0 ..< lookups {
                    blackHole(QueryOwner(database: database, id: (step * 7919) % ownerCount).referrers(through: \QueryItem.owner))
                }
            },
            baseline: {
                for step in 0 ..< lookups { blackHole(raw.referrers(owner: (step * 7919) % ownerCount)) }
            })
    }
}

enum BenchmarkError: Error {
    case unexpected(String)
}

/// The raw baselines of the query benchmark: a fixed-schema table, one row per item, with
/// an index on each filtered column, queried with cached prepared statements.
final class RawItemTable {
    private var handle: OpaquePointer?
    private var byCategory: OpaquePointer?
    private var byOwner: OpaquePointer?

    init(path: String, names: [String], categoryCount: Int, ownerCount: Int) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_exec(
            handle,
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            CREATE TABLE items (id INTEGER PRIMARY KEY, category INTEGER NOT NULL, name TEXT NOT NULL, rank INTEGER NOT NULL, owner INTEGER);
            CREATE INDEX items_by_category ON items(category);
            CREATE INDEX items_by_owner ON items(owner);
            BEGIN;
            """, nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO items(id, category, name, rank, owner) VALUES (?, ?, ?, ?, ?)", -1, &insert, nil)
        for (index, name) in names.enumerated() {
            sqlite3_bind_int64(insert, 1, Int64(index))
            sqlite3_bind_int64(insert, 2, Int64(index % categoryCount))
            sqlite3_bind_text(insert, 3, name, -1, transient)
            sqlite3_bind_int64(insert, 4, Int64(index))
            sqlite3_bind_int64(insert, 5, Int64(index % ownerCount))
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        sqlite3_prepare_v3(handle, "SELECT id FROM items WHERE category = ? ORDER BY name, id LIMIT ?", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &byCategory, nil)
        sqlite3_prepare_v3(handle, "SELECT id FROM items WHERE owner = ? ORDER BY id", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &byOwner, nil)
    }

    deinit {
        sqlite3_finalize(byCategory)
        sqlite3_finalize(byOwner)
        sqlite3_close_v2(handle)
    }

    func query(category: Int, limit: Int) -> [Int] {
        sqlite3_bind_int64(byCategory, 1, Int64(category))
        sqlite3_bind_int64(byCategory, 2, Int64(limit))
        return ids(byCategory)
    }

    func referrers(owner: Int) -> [Int] {
        sqlite3_bind_int64(byOwner, 1, Int64(owner))
        return ids(byOwner)
    }

    private func ids(_ statement: OpaquePointer?) -> [Int] {
        var ids: [Int] = []
        while sqlite3_step(statement) == SQLITE_ROW { ids.append(Int(sqlite3_column_int64(statement, 0))) }
        sqlite3_reset(statement)
        return ids
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bound text.
    private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
