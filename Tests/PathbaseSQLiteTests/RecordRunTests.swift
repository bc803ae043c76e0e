import Foundation
import GRDB
import Pathbase
@testable import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("SQLiteDatabase: records after a time come from runs of records (format 7), each once, in order")
struct RecordRunTests {

    /// Every record, read one page of `size` at a time.
    private static func paged(_ database: SQLiteDatabase, size: Int) -> [Pathbase.Record] {
        var all: [Pathbase.Record] = []
        var cursor: Timestamp?
        while true {
            let page = database.records(after: cursor, limit: size)
            all += page
            guard page.count == size, let last = page.last else { return all }
            cursor = last.timestamp
        }
    }

    private static func key(_ record: Pathbase.Record) -> String {
        "\(record.timestamp) \(record.path.model)/\(record.path.instance)/\(record.path.property) \(record.value)"
    }

    @Test("A batched save is one run; its records, with overwrites and deletes, page back in order with their values")
    func batchIsOneRun() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        try database.batch {
            for instance in 0 ..< 10 {
                database.set("name \(instance)", for: Path(model: 1, instance: instance, property: 1))
                database.set(instance, for: Path(model: 1, instance: instance, property: 2))
            }
        }
        database.set("renamed", for: Path(model: 1, instance: 3, property: 1))
        let all = database.records(after: nil, limit: nil)
        #expect(all.count == 21)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // The superseded name comes with its old value, the current one with the new.
        #expect(all.filter { $0.path == Path(model: 1, instance: 3, property: 1) }.map { "\($0.value)" } == ["name 3", "renamed"])
        for size in [1, 2, 5, 7] {
            #expect(Self.paged(database, size: size).map(Self.key) == all.map(Self.key))
        }
        let runs = try rawQueue(path: directory.file()).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM record_runs") }
        // 20 rows in two flushes make one run, then one write: two runs, not 21 rows.
        #expect(runs == 2)
    }

    @Test("A run waits for the batch's flushes: reads by time inside the batch see its records, and a nested batch that throws leaves none of its own")
    func runFollowsTheBatch() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        struct Thrown: Error {}
        try database.batch {
            for instance in 0 ..< 40 { database.set(instance, for: Path(model: 2, instance: instance, property: 1)) }
            #expect(database.records(after: nil, limit: nil).count == 40)
            for instance in 40 ..< 60 { database.set(instance, for: Path(model: 2, instance: instance, property: 1)) }
            #expect(throws: Thrown.self) {
                try database.batch {
                    for instance in 60 ..< 100 { database.set(instance, for: Path(model: 2, instance: instance, property: 1)) }
                    #expect(database.records(after: nil, limit: nil).count == 100)
                    throw Thrown()
                }
            }
            for instance in 100 ..< 110 { database.set(instance, for: Path(model: 2, instance: instance, property: 1)) }
        }
        let instances = database.records(after: nil, limit: nil).map(\.path.instance)
        #expect(instances == Array(0 ..< 60) + Array(100 ..< 110))
        let reopened = try SQLiteDatabase(path: directory.file())
        #expect(reopened.records(after: nil, limit: nil).map(\.path.instance) == instances)
    }

    @Test("Two connections writing one file interleave their runs in time: pages still come in timestamp order, every record once")
    func overlappingRunsOfTwoConnections() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let first = try SQLiteDatabase(path: path)
        let second = try SQLiteDatabase(path: path)
        for round in 0 ..< 20 {
            let writer = round.isMultiple(of: 2) ? first : second
            try writer.batch {
                for property in 1 ... 3 { writer.set(round * 10 + property, for: Path(model: 2, instance: round % 4, property: property)) }
            }
        }
        let all = first.records(after: nil, limit: nil)
        #expect(all.count == 60)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(Set(all.map(Self.key)).count == 60)
        for size in [1, 4, 9] {
            #expect(Self.paged(second, size: size).map(Self.key) == all.map(Self.key))
        }
    }

    @Test("Records pulled again, or far apart in time, are listed once and in order after any cursor")
    func pulledRecords() throws {
        let database = try SQLiteDatabase()
        let hour: Int64 = 3_600_000_000
        let pulled = (0 ..< 6).map { index in
            Pathbase.Record(path: Path(model: 3, instance: index % 2, property: 1 + index % 3), timestamp: Timestamp(time: 1_000_000 + Int64(index) * hour, counter: 0, replica: 9), value: "v\(index)")
        }
        for _ in 0 ..< 2 {
            try database.batch { for record in pulled { database.apply(record) } }
        }
        let all = database.records(after: nil, limit: nil)
        #expect(all.map(\.timestamp) == pulled.map(\.timestamp))
        for (index, record) in pulled.enumerated() {
            #expect(database.records(after: record.timestamp, limit: nil).map(\.timestamp) == pulled.dropFirst(index + 1).map(\.timestamp))
        }
        #expect(Self.paged(database, size: 2).map(Self.key) == all.map(Self.key))
    }

    @Test("A format 6 file keeps the times of its records in record_times: after opening, they page with the new runs, in order")
    func formatSixTimesStay() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            for instance in 0 ..< 5 { database.set("old \(instance)", for: Path(model: 4, instance: instance, property: 1)) }
        }
        // As format 6 stored them: a row of `record_times` per record, no runs, bodies
        // without a base.
        let queue = try rawQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO record_times(time, counter, replica, model, instance, property)
                    SELECT time, counter, replica, model, instance, property FROM current_values;
                    """)
            try downgradeToFormatSeven(db)
            try db.execute(sql: "DROP TABLE record_runs; PRAGMA user_version = 6;")
        }
        try queue.close()
        let database = try SQLiteDatabase(path: path)
        for instance in 0 ..< 5 { database.set("new \(instance)", for: Path(model: 4, instance: instance, property: 2)) }
        database.set("old 0 renamed", for: Path(model: 4, instance: 0, property: 1))
        let all = database.records(after: nil, limit: nil)
        #expect(all.map { "\($0.value)" } == (0 ..< 5).map { "old \($0)" } + (0 ..< 5).map { "new \($0)" } + ["old 0 renamed"])
        for size in [1, 3, 4] {
            #expect(Self.paged(database, size: size).map(Self.key) == all.map(Self.key))
        }
    }

    @Test("A run's blob reads back every path and timestamp written, whatever keys, replicas and gaps; other bytes read as no run", arguments: [1, 2, 3] as [UInt64])
    func encodingRoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let keys = [0, 1, -1, Int.min, Int.max, 1 << 40]
        var time = Int64(bitPattern: random.next()) / 4
        var records: [RecordRun.Record] = []
        for _ in 0 ..< 200 {
            // Records of one instance in a row, then a jump elsewhere, as batches write them.
            time += Int64(random.next() % 3 == 0 ? random.next() % 5_000_000 : 0)
            let pick = { (random: inout SplitMix64) in random.next() % 4 == 0 ? keys[Int(random.next() % UInt64(keys.count))] : Int(random.next() % 100) }
            let path = Path(model: pick(&random), instance: pick(&random), property: pick(&random))
            let replica: UInt32 = random.next() % 5 == 0 ? .max : 7
            records.append(RecordRun.Record(path: path, timestamp: Timestamp(time: time, counter: UInt32(truncatingIfNeeded: random.next() % 70_000), replica: replica)))
        }
        records.sort(by: RecordRun.Record.precedes)
        let first = try #require(records.first)
        let bytes = RecordRun.encode(records[...])
        let decoded = bytes.withUnsafeBytes { RecordRun.decode($0, firstTime: first.timestamp.time, firstReplica: first.timestamp.replica) }
        #expect(decoded?.map(\.path) == records.map(\.path))
        #expect(decoded?.map(\.timestamp) == records.map(\.timestamp))
        // Cut inside a record, or an unknown flag: not a run.
        #expect(bytes.dropLast().withUnsafeBytes { RecordRun.decode($0, firstTime: 0, firstReplica: 0) } == nil)
        #expect(([0x80] + bytes).withUnsafeBytes { RecordRun.decode($0, firstTime: 0, firstReplica: 0) } == nil)
    }

    @Test("After reopening, the clock goes on after the newest record of the last runs, one of another replica among them")
    func clockSeedsFromRuns() throws {
        let directory = TemporaryDirectory()
        let future = Timestamp(time: Timestamp(latestAt: Date()).time + 3_600_000_000, counter: 9, replica: 0xABCD_EF01)
        do {
            let database = try SQLiteDatabase(path: directory.file())
            try database.batch {
                for instance in 0 ..< 30 { database.set(instance, for: Path(model: 3, instance: instance, property: 1)) }
                try database.store("pulled", for: Path(model: 3, instance: 0, property: 2), timestamp: future)
                database.set(99, for: Path(model: 3, instance: 1, property: 1))
            }
            #expect(database.records(after: nil, limit: nil).last?.timestamp == future)
        }
        let reopened = try SQLiteDatabase(path: directory.file())
        reopened.set("after", for: Path(model: 3, instance: 5, property: 2))
        let last = try #require(reopened.records(after: nil, limit: nil).last)
        #expect(last.path == Path(model: 3, instance: 5, property: 2))
        #expect(last.timestamp > future)
    }

    @Test("Pruning takes the pruned records out of the runs: a run of pruned records goes, one with others keeps those")
    func pruningShrinksRuns() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        // Ten versions of instance 0, one of instance 1 in the same runs; then a later run.
        for version in 0 ..< 10 {
            try database.batch {
                database.set(version, for: Path(model: 5, instance: 0, property: 1))
                if version == 0 { database.set("kept", for: Path(model: 5, instance: 1, property: 1)) }
            }
        }
        let cut = database.clock.now()
        database.set(10, for: Path(model: 5, instance: 0, property: 1))
        try database.prune(before: cut)
        let listed = database.records(after: nil, limit: nil)
        #expect(listed.map { "\($0.value)" } == ["kept", "9", "10"])
        database.close()
        let runs = try rawQueue(path: directory.file()).read { db in
            try Row.fetchAll(db, sql: "SELECT time, replica, records FROM record_runs ORDER BY time").map { row in
                (row[2] as Data).withUnsafeBytes { RecordRun.decode($0, firstTime: row[0], firstReplica: UInt32(truncatingIfNeeded: row[1] as Int64)) } ?? []
            }
        }
        // The first run keeps "kept" (current); the runs of versions 1–8 are gone.
        #expect(runs.map(\.count) == [1, 1, 1])
        #expect(runs.flatMap { $0 }.map(\.timestamp) == listed.map(\.timestamp))
    }
}
