import Foundation
import Pathbase
import PathbaseSQLite

/// The object lines of `pathbase-bench sqlite` (issue 18): `BenchObject`s (five
/// properties) on `SQLiteDatabase` against the same rows in a hand-written GRDB record.
enum ObjectBenchmark {

    /// `PATHBASE_BENCH_OBJECTS` sets the count of objects (10^4) for profiling runs.
    static func run() throws {
        let count =
            ProcessInfo.processInfo.environment["PATHBASE_BENCH_OBJECTS"].flatMap(Int.init)
            ?? BenchScale.count(10_000, smoke: 50)
        let names = benchNames(count)
        try writeLines(count: count, names: names)
        try readLines(count: count, names: names)
        try growthLine(names: names)
        try retentionLine(count: count, names: names)
        try bytesLine(count: count, names: names)
    }

    /// One object created, each in its own transaction (`batch { create }` against GRDB's
    /// `write { insert }`); every round writes new ids on both sides. Seven rounds: a
    /// commit's time varies with the disk, and with three the best of each side printed
    /// ratios from 1.00 to 1.31 for the same code.
    private static func writeLines(count: Int, names: [String]) throws {
        for (name, keepsHistory, goal) in [("sqlite.object-write-vs-grdb", true, 1.5), ("sqlite.object-write-no-history-vs-grdb", false, 1.2)] {
            let database = try SQLiteBenchmark.freshDatabase(name, options: SQLiteDatabase.Options(keepsHistory: keepsHistory))
            let grdb = try GRDBRecordBaseline(path: SQLiteBenchmark.path("\(name)-grdb"))
            var next = (objects: 0, rows: 0)
            compare(
                name, operations: count, rounds: 7, goal: goal,
                {
                    writeObjects(in: database, ids: next.objects ..< next.objects + count, names: names)
                    next.objects += count
                },
                baseline: {
                    for id in next.rows ..< next.rows + count {
                        mustSucceed { try grdb.insert(BenchRow(id: id, names: names)) }
                    }
                    next.rows += count
                })
        }
    }

    /// Listing every object with its properties, and point reads of one object.
    private static func readLines(count: Int, names: [String]) throws {
        guard BenchScale.runs("sqlite.listing") || BenchScale.runs("sqlite.object-read") else { return }
        let database = try SQLiteBenchmark.freshDatabase("listing")
        try database.batch { writeObjectsUnbatched(in: database, ids: 0 ..< count, names: names) }
        let grdb = try GRDBRecordBaseline(path: SQLiteBenchmark.path("listing-grdb"))
        try grdb.insertAll((0 ..< count).map { BenchRow(id: $0, names: names) })
        let raw = RawRowListing(path: grdb.path)

        let listAll = {
            blackHole(
                mustSucceed {
                    try database.read { database.all(of: BenchObject.self).reduce(0) { $0 &+ $1.checksum } }
                })
        }
        compare(
            "sqlite.listing-vs-grdb", operations: count, rounds: 5, goal: 1.2, listAll,
            baseline: {
                blackHole(mustSucceed { try grdb.readAll().reduce(0) { $0 &+ $1.checksum } })
            })
        compare(
            "sqlite.listing-vs-raw", operations: count, rounds: 5, goal: 1.5, listAll,
            baseline: {
                blackHole(raw.readAll().reduce(0) { $0 &+ $1.checksum })
            })

        // Each object read in its own read transaction, in random order, no cache.
        let order = (0 ..< count).shuffled()
        compare(
            "sqlite.object-read-vs-grdb", operations: count, rounds: 3, goal: 1.5,
            {
                var total = 0
                for id in order {
                    total &+= mustSucceed { try database.read { BenchObject(database: database, id: id).checksum } }
                }
                blackHole(total)
            },
            baseline: {
                var total = 0
                for id in order {
                    total &+= mustSucceed { try grdb.read(id: id)?.checksum ?? 0 }
                }
                blackHole(total)
            })
    }

    /// The write line's cost per object in a file of 10^6 objects against one of 10^4.
    /// `PATHBASE_BENCH_GROWTH_OBJECTS` sets the large file's count for quicker runs.
    private static func growthLine(names: [String]) throws {
        guard BenchScale.runs("sqlite.object-write.growth") else { return }
        let largeCount = BenchScale.count(
            ProcessInfo.processInfo.environment["PATHBASE_BENCH_GROWTH_OBJECTS"].flatMap(Int.init) ?? 1_000_000,
            smoke: 500
        )
        let smallCount = BenchScale.count(10_000, smoke: 50)
        let written = BenchScale.count(2_000, smoke: 20)
        func filled(_ name: String, objects: Int) throws -> SQLiteDatabase {
            let database = try SQLiteBenchmark.freshDatabase(name)
            for start in stride(from: 0, to: objects, by: 10_000) {
                try database.batch { writeObjectsUnbatched(in: database, ids: start ..< min(objects, start + 10_000), names: names) }
            }
            return database
        }
        let large = try filled("growth-large", objects: largeCount)
        let small = try filled("growth-small", objects: smallCount)
        var next = (large: largeCount, small: smallCount)
        compare(
            "sqlite.object-write.growth", operations: written, rounds: 3, goal: 1.3,
            {
                writeObjects(in: large, ids: next.large ..< next.large + written, names: names)
                next.large += written
            },
            baseline: {
                writeObjects(in: small, ids: next.small ..< next.small + written, names: names)
                next.small += written
            })
    }

    /// One existing object updated (two properties), each in its own transaction, in a file
    /// keeping two versions per path (``HistoryRetention``) against one keeping everything:
    /// from the second round on, each update of the retaining file also deletes the two
    /// versions it supersedes beyond the policy.
    private static func retentionLine(count: Int, names: [String]) throws {
        guard BenchScale.runs("sqlite.object-update.retention") else { return }
        func filled(_ name: String, retention: HistoryRetention) throws -> SQLiteDatabase {
            let database = try SQLiteBenchmark.freshDatabase(name, options: SQLiteDatabase.Options(retention: retention))
            try database.batch { writeObjectsUnbatched(in: database, ids: 0 ..< count, names: names) }
            return database
        }
        let retaining = try filled("retention", retention: HistoryRetention(versions: 2))
        let keeping = try filled("retention-everything", retention: .everything)
        func update(_ database: SQLiteDatabase, round: inout Int) {
            round += 1
            for id in 0 ..< count {
                let object = BenchObject(database: database, id: id)
                mustSucceed {
                    try database.batch {
                        object.count = id &+ round
                        object.name = names[(id &+ round) % names.count]
                    }
                }
            }
        }
        var rounds = (retaining: 0, keeping: 0)
        compare(
            "sqlite.object-update.retention", operations: count, rounds: 7, goal: 1.3,
            { update(retaining, round: &rounds.retaining) },
            baseline: { update(keeping, round: &rounds.keeping) })
    }

    /// File bytes per object, each written once with history, against the GRDB table plus
    /// a history table holding the same versions. Both files are checkpointed first.
    private static func bytesLine(count: Int, names: [String]) throws {
        guard BenchScale.runs("sqlite.bytes-per-record") else { return }
        let path = SQLiteBenchmark.path("bytes")
        let database = try SQLiteBenchmark.freshDatabase("bytes")
        try database.batch { writeObjectsUnbatched(in: database, ids: 0 ..< count, names: names) }
        database.close()
        let grdb = try GRDBRecordBaseline(path: SQLiteBenchmark.path("bytes-grdb"), history: true)
        for id in 0 ..< count {
            try grdb.insertWithHistory(BenchRow(id: id, names: names), time: Int64(id))
        }
        report(
            "sqlite.bytes-per-record",
            Measurement(nanosecondsPerOperation: Double(fileSize(path)) / Double(count)),
            baseline: Measurement(nanosecondsPerOperation: Double(try grdb.fileBytes()) / Double(count)),
            unit: "bytes",
            goal: 1.5
        )
    }

    /// Creates each object in its own transaction.
    static func writeObjects(in database: SQLiteDatabase, ids: Range<Int>, names: [String]) {
        for id in ids {
            mustSucceed { try database.batch { createObject(in: database, id: id, names: names) } }
        }
    }

    /// Creates objects without a transaction of their own (the caller's batch is theirs).
    static func writeObjectsUnbatched(in database: SQLiteDatabase, ids: Range<Int>, names: [String]) {
        for id in ids { createObject(in: database, id: id, names: names) }
    }

    /// Creates the object that holds what `BenchRow(id:names:)` holds.
    static func createObject(in database: SQLiteDatabase, id: Int, names: [String]) {
        BenchObject.create(
            in: database, id: id, count: id, name: names[id % names.count], score: Double(id),
            flag: id % 2 == 0, note: names[(id &+ 1) % names.count]
        )
    }
}

/// Runs a benchmark step that must not fail: a failure ends the run with its error, so a
/// broken line never prints a figure.
func mustSucceed<T>(_ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        FileHandle.standardError.write(Data("benchmark step failed: \(error)\n".utf8))
        exit(1)
    }
}
