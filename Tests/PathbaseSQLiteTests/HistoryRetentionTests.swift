import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// `SQLiteDatabase.Options.retention` (issue 49): each write trims its paths' superseded
/// history to the policy, in its own transaction.
@Suite("History retention on an SQLite file")
struct HistoryRetentionTests {

    private let path = Path(model: 3, instance: 1, property: 1)
    private let other = Path(model: 3, instance: 2, property: 1)

    private func open(_ retention: HistoryRetention, in directory: TemporaryDirectory) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: directory.file(), options: SQLiteDatabase.Options(retention: retention))
    }

    private func values(_ database: SQLiteDatabase, at path: Path) -> [String] {
        database.records(at: path).compactMap { $0.value as? String }
    }

    @Test("keeping 2 versions: single writes and a batch leave the newest two of each path written; a path not written keeps its history")
    func versions() throws {
        let directory = TemporaryDirectory()
        let unlimited = try SQLiteDatabase(path: directory.file())
        for n in 0 ..< 4 { unlimited.set("other \(n)", for: other) }
        unlimited.close()

        let database = try open(HistoryRetention(versions: 2), in: directory)
        for n in 0 ..< 5 { database.set("v\(n)", for: path) }
        #expect(values(database, at: path) == ["v3", "v4"])
        try database.batch {
            for n in 5 ..< 10 { database.set("v\(n)", for: path) }
        }
        #expect(values(database, at: path) == ["v8", "v9"])
        #expect(database.get(path) as String? == "v9")
        #expect(values(database, at: other).count == 4)
        // A batch that rolls back removes nothing.
        #expect(throws: TestError.self) {
            try database.batch {
                database.set("v10", for: path)
                throw TestError()
            }
        }
        #expect(values(database, at: path) == ["v8", "v9"])
        // Records after the trimmed ones read in order; the removed ones are gone from them too.
        #expect(database.records(after: nil).filter { $0.path == path }.compactMap { $0.value as? String } == ["v8", "v9"])
    }

    @Test("keeping 30 days: records older than the state 30 days ago go, the state then and everything later stay; a view of an earlier moment reads the path as absent")
    func age() throws {
        let directory = TemporaryDirectory()
        let database = try open(HistoryRetention(age: 30 * 86400), in: directory)
        let day: TimeInterval = 86400
        let now = Date()
        for (n, daysAgo) in [50.0, 40, 20, 10].enumerated() {
            database.set("v\(n)", for: path, timestamp: Timestamp(latestAt: now.addingTimeInterval(-daysAgo * day)))
        }
        // Written 50 and 40 days ago: the one of 40 days ago is the state 30 days ago.
        #expect(values(database, at: path) == ["v1", "v2", "v3"])
        #expect(database.view(at: now.addingTimeInterval(-35 * day)).get(path) as String? == "v1")
        #expect(database.view(at: now.addingTimeInterval(-45 * day)).get(path) as String? == nil)
        database.set("v4", for: path)
        #expect(values(database, at: path) == ["v1", "v2", "v3", "v4"])
    }

    @Test("keeping 30 days: paths not written again lose their aged records too, at the first write of the connection (the sweep follows the runs' index from where the file's last sweep stopped)")
    func ageSweep() throws {
        let directory = TemporaryDirectory()
        let now = Date()
        let unlimited = try SQLiteDatabase(path: directory.file())
        for (n, daysAgo) in [50.0, 40, 20, 10].enumerated() {
            unlimited.set("o\(n)", for: other, timestamp: Timestamp(latestAt: now.addingTimeInterval(-daysAgo * 86400)))
        }
        unlimited.close()

        let database = try open(HistoryRetention(age: 30 * 86400), in: directory)
        #expect(values(database, at: other) == ["o0", "o1", "o2", "o3"])
        database.set("v0", for: path)
        #expect(values(database, at: other) == ["o1", "o2", "o3"])
        #expect(database.get(other) as String? == "o3")
        #expect(values(database, at: path) == ["v0"])
    }

    @Test("both: a record goes only when neither the count nor the age keeps it")
    func both() throws {
        let directory = TemporaryDirectory()
        let database = try open(HistoryRetention(versions: 2, age: 30 * 86400), in: directory)
        let now = Date()
        for (n, daysAgo) in [50.0, 40, 35, 1].enumerated() {
            database.set("v\(n)", for: path, timestamp: Timestamp(latestAt: now.addingTimeInterval(-daysAgo * 86400)))
        }
        // The count keeps v2 and v3, the age keeps v2 (the state 30 days ago) and v3.
        #expect(values(database, at: path) == ["v2", "v3"])
        for n in 4 ..< 7 { database.set("v\(n)", for: path) }
        // The age keeps v2 (still the state 30 days ago) and everything since.
        #expect(values(database, at: path) == ["v2", "v3", "v4", "v5", "v6"])
    }

    @Test("without history, or with the default policy, nothing changes")
    func defaults() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        for n in 0 ..< 5 { database.set("v\(n)", for: path) }
        #expect(values(database, at: path).count == 5)
        #expect(HistoryRetention().keepsEverything && HistoryRetention.everything.keepsEverything)
        #expect(HistoryRetention(versions: 0).versions == 1)
        let current = try SQLiteDatabase(path: directory.file("current.sqlite"), options: SQLiteDatabase.Options(keepsHistory: false, retention: HistoryRetention(versions: 1)))
        for n in 0 ..< 3 { current.set("v\(n)", for: path) }
        #expect(values(current, at: path) == ["v2"])
    }

    @Test("a file reopened with another policy: the policy of the connection applies to its writes; the file stores none")
    func reopen() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let everything = try SQLiteDatabase(path: file)
        for n in 0 ..< 6 { everything.set("v\(n)", for: path) }
        everything.close()

        let three = try SQLiteDatabase(path: file, options: SQLiteDatabase.Options(retention: HistoryRetention(versions: 3)))
        #expect(values(three, at: path).count == 6)
        three.set("v6", for: path)
        #expect(values(three, at: path) == ["v4", "v5", "v6"])
        three.close()

        let again = try SQLiteDatabase(path: file)
        again.set("v7", for: path)
        #expect(values(again, at: path) == ["v4", "v5", "v6", "v7"])
        again.close()

        let one = try SQLiteDatabase(path: file, options: SQLiteDatabase.Options(retention: HistoryRetention(versions: 1)))
        one.set("v8", for: path)
        #expect(values(one, at: path) == ["v8"])
        #expect(one.get(path) as String? == "v8")
    }

    @Test("a deleted instance stays deleted: its status is its current record, which retention never removes")
    func deletionStays() throws {
        let directory = TemporaryDirectory()
        let database = try open(HistoryRetention(versions: 1), in: directory)
        let status = Path(model: 3, instance: 1, property: .instanceId)
        database.set(InstanceStatus.created, for: status)
        database.set("title", for: path)
        database.set(InstanceStatus.deleted, for: status)
        for n in 0 ..< 3 { database.set("other \(n)", for: other) }
        #expect(database.get(status) as InstanceStatus? == .deleted)
        #expect(database.records(at: status).count == 1)
        #expect(database.all(model: 3, at: nil) { instance, status in status == .deleted ? instance : nil } == [1])
    }

    @Test("the in-memory history database trims a column in passes once it holds retentionPassSize records or twice what its last pass kept: by count and by age, the current value always stays")
    func inMemory() throws {
        let pass = InMemoryHistoryDatabase.retentionPassSize
        let byCount = InMemoryHistoryDatabase(retention: HistoryRetention(versions: 2))
        for n in 0 ..< pass - 1 { byCount.set("v\(n)", for: path) }
        #expect(byCount.records(at: path).count == pass - 1)
        byCount.set("v\(pass - 1)", for: path)
        #expect(byCount.records(at: path).compactMap { $0.value as? String } == ["v\(pass - 2)", "v\(pass - 1)"])
        #expect(byCount.get(path) as String? == "v\(pass - 1)")
        // Other instances of the column keep their only record.
        byCount.set("only", for: other)
        #expect(byCount.get(other) as String? == "only")

        let byAge = InMemoryHistoryDatabase(retention: HistoryRetention(age: 30 * 86400))
        let now = Date()
        // One version a day for `pass` days, the newest today.
        for n in 0 ..< pass {
            let daysAgo = Double(pass - 1 - n)
            byAge.set("v\(n)", for: path, timestamp: Timestamp(latestAt: now.addingTimeInterval(-daysAgo * 86400 - 60)))
        }
        // Kept: the versions of the last 30 days and the state 30 days ago (written 30 days ago).
        let kept = byAge.records(at: path).compactMap { $0.value as? String }
        #expect(kept == (pass - 31 ..< pass).map { "v\($0)" })
        #expect(byAge.view(at: now.addingTimeInterval(-30 * 86400)).get(path) as String? == "v\(pass - 31)")
        #expect(byAge.view(at: now.addingTimeInterval(-40 * 86400)).get(path) as String? == nil)
    }
}
