import Foundation
import Pathbase
import PathbaseSQLite
import GRDBSQLite

/// `pathbase-bench sqlite`: `SQLiteDatabase` on a WAL file, used through models, against
/// raw SQLite C calls on the same layout, the in-memory database, and a GRDB record.
enum SQLiteBenchmark {

    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-bench-\(getpid())")

    static func run() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["PATHBASE_BENCH_KEEP"] == nil { try? FileManager.default.removeItem(at: directory) } }

        let count = BenchScale.count(100_000, smoke: 200)
        let names = benchNames(count)

        // Batched writes: three properties of every instance per round, one transaction.
        let database = try freshDatabase("batch")
        let workload = ModelWorkload(database: database, count: count, names: names)
        try database.batch { workload.create() }
        let raw = RawSQLite(path: path("raw-batch"))
        var rawTime: Int64 = 1
        raw.execute("BEGIN")
        for index in 0 ..< count {
            raw.writeInt(model: 1, property: 0, instance: index, time: rawTime, type: 16, 1)
            raw.writeInt(model: 1, property: 1, instance: index, time: rawTime, index)
            raw.writeString(model: 1, property: 2, instance: index, time: rawTime, names[index])
            raw.writeDouble(model: 1, property: 3, instance: index, time: rawTime, Double(index))
        }
        raw.execute("COMMIT")
        compare(
            "sqlite.batch-write", operations: count * 3, rounds: 3,
            {
                try? database.batch { workload.set() }
            },
            baseline: {
                raw.execute("BEGIN")
                for index in 0 ..< count {
                    rawTime += 1
                    raw.writeInt(model: 1, property: 1, instance: index, time: rawTime, index &+ 1)
                    raw.writeString(model: 1, property: 2, instance: index, time: rawTime, names[count - 1 - index])
                    raw.writeDouble(model: 1, property: 3, instance: index, time: rawTime, Double(index) * 0.5)
                }
                raw.execute("COMMIT")
            })

        // Single sets outside a batch: each is its own transaction.
        let singles = BenchScale.count(2_000, smoke: 20)
        let items = workload.items
        compare(
            "sqlite.autocommit-set", operations: singles, rounds: 3,
            {
                for index in 0 ..< singles { items[index].count = index &+ 7 }
            },
            baseline: {
                for index in 0 ..< singles {
                    rawTime += 1
                    raw.execute("BEGIN")
                    raw.writeInt(model: 1, property: 1, instance: index, time: rawTime, index &+ 7)
                    raw.execute("COMMIT")
                }
            })

        // Point reads of one property, in random order, without a cache.
        let order = (0 ..< count).shuffled()
        compare(
            "sqlite.cold-get", operations: count, rounds: 3,
            {
                var total = 0
                for index in order { total &+= items[index].count }
                blackHole(total)
            },
            baseline: {
                var total = 0
                for index in order { total &+= raw.readInt(model: 1, property: 1, instance: index) ?? 0 }
                blackHole(total)
            })

        // Reads through a cache that holds every value, against the in-memory database.
        let cached = CachedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: count * 4))
        let cachedWorkload = ModelWorkload(database: cached, count: count, names: names)
        cachedWorkload.attach()
        cachedWorkload.get()
        let memory = ModelWorkload(database: InMemoryDatabase(), count: count, names: names)
        memory.create()
        compare("sqlite.cached-get", operations: count * 3, goal: 1.5, { cachedWorkload.get() }, baseline: { memory.get() })

        // Listing every instance.
        compare(
            "sqlite.all", operations: count, rounds: 3, { workload.all() },
            baseline: {
                blackHole(raw.createdInstances(model: 1))
            })

        try allAtDateLine()

        // Sync reads the records page by page (format 8: from runs, each value looked up).
        if BenchScale.runs("sqlite.records-after-page") {
            let file = try freshDatabase("paging")
            let paging = try RecordPagingWorkload(instances: BenchScale.count(20_000, smoke: 200), database: file) { body in try file.batch(body) }
            // The line: against raw SQL paging the same rows by keyset.
            let raw = try RawRecordPaging(path: path("raw-paging"), records: paging.records)
            guard raw.pageAll() == paging.records.count else {
                throw BenchmarkError.unexpected("raw paging returned \(raw.pageAll()) of \(paging.records.count) records")
            }
            compare("sqlite.records-after-page", operations: paging.records.count, rounds: 3, goal: 2.0, { paging.pageDatabase() }, baseline: { blackHole(raw.pageAll()) })
            // Against slicing a sorted in-memory [Record] (the line's baseline before issue 49).
            compare("sqlite.records-after-page-vs-array", operations: paging.records.count, rounds: 3, { paging.pageDatabase() }, baseline: { paging.pageArray() })
        }

        try ObjectBenchmark.run()

        // Per-operation cost from 10^4 to 10^6 instances. One operation is one instance
        // created: a status and three values, both sides.
        let sizes = BenchScale.isSmoke ? [(4, 30, 1), (5, 60, 1), (6, 90, 1)] : [(4, 10_000, 5), (5, 100_000, 3), (6, 1_000_000, 1)]
        for (exponent, size, rounds) in sizes {
            guard BenchScale.runs("sqlite.batch-write.1e\(exponent)") || BenchScale.runs("sqlite.cold-get.1e\(exponent)") else { continue }
            let sizeNames = benchNames(size)
            let sizeDatabase = try freshDatabase("scale-\(exponent)")
            let sizeWorkload = ModelWorkload(database: sizeDatabase, count: size, names: sizeNames)
            let sizeRaw = RawSQLite(path: path("raw-scale-\(exponent)"))
            var time: Int64 = 1
            func writeRaw() {
                sizeRaw.execute("BEGIN")
                for index in 0 ..< size {
                    time += 1
                    sizeRaw.writeInt(model: 1, property: 0, instance: index, time: time, type: 16, 1)
                    sizeRaw.writeInt(model: 1, property: 1, instance: index, time: time, index)
                    sizeRaw.writeString(model: 1, property: 2, instance: index, time: time, sizeNames[index])
                    sizeRaw.writeDouble(model: 1, property: 3, instance: index, time: time, Double(index))
                }
                sizeRaw.execute("COMMIT")
            }
            compare(
                "sqlite.batch-write.1e\(exponent)", operations: size, rounds: rounds,
                {
                    try? sizeDatabase.batch { sizeWorkload.create() }
                }, baseline: writeRaw)
            if !BenchScale.runs("sqlite.batch-write.1e\(exponent)") {
                // The write line fills both files; with it filtered out, the read line
                // (PATHBASE_BENCH_ONLY=sqlite.cold-get) fills them here.
                try sizeDatabase.batch { sizeWorkload.create() }
                writeRaw()
            }
            let sample = (0 ..< BenchScale.count(20_000, smoke: 50)).map { _ in Int.random(in: 0 ..< size) }
            let sizeItems = sizeWorkload.items
            compare(
                "sqlite.cold-get.1e\(exponent)", operations: sample.count, rounds: 3,
                {
                    var total = 0
                    for index in sample { total &+= sizeItems[index].count }
                    blackHole(total)
                },
                baseline: {
                    var total = 0
                    for index in sample { total &+= sizeRaw.readInt(model: 1, property: 1, instance: index) ?? 0 }
                    blackHole(total)
                })
        }
    }

    /// A model listed at a date in a file whose instances have 30 versions of each property,
    /// against the same listing where they have one: near 1.0 when the listing reads each
    /// instance's statuses and not the rest of its history (it read all of it before).
    private static func allAtDateLine() throws {
        guard BenchScale.runs("sqlite.all-at-date") else { return }
        let count = BenchScale.count(10_000, smoke: 50)
        let names = benchNames(count)
        func file(_ name: String, versions: Int) throws -> SQLiteDatabase {
            let database = try freshDatabase(name)
            let workload = ModelWorkload(database: database, count: count, names: names)
            try database.batch { workload.create() }
            for _ in 1 ..< versions { try database.batch { workload.set() } }
            return database
        }
        let deep = try file("history-deep", versions: 30)
        let shallow = try file("history-shallow", versions: 1)
        let now = Timestamp(latestAt: Date())
        func list(_ database: SQLiteDatabase) {
            blackHole(database.all(model: 1, at: now) { instance, status in status == .created ? instance : nil })
        }
        compare("sqlite.all-at-date.30-versions", operations: count, rounds: 5, { list(deep) }, baseline: { list(shallow) })
    }

    static func path(_ name: String) -> String {
        directory.appendingPathComponent("\(name).sqlite").path
    }

    static func freshDatabase(_ name: String, options: SQLiteDatabase.Options = SQLiteDatabase.Options()) throws -> SQLiteDatabase {
        let file = path(name)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
        return try SQLiteDatabase(path: file, options: options)
    }
}
