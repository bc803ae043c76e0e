import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

@Suite("SQLiteDatabase: history")
struct HistoryTests {

    @Test("all(model:at:) lists the instances as they existed at that time, not today's", arguments: [false, true])
    func instancesAtTime(inFile: Bool) throws {
        let directory = TemporaryDirectory()
        let database = try inFile ? SQLiteDatabase(path: directory.file()) : SQLiteDatabase()
        Item.create(in: database, id: 1, title: "first")
        let afterFirst = database.clock.now()
        Item.create(in: database, id: 2, title: "second")
        database.get(id: 1, of: Item.self)?.delete()
        let afterDelete = database.clock.now()
        Item.create(in: database, id: 3, title: "third")

        func instances(at timestamp: Timestamp?) -> [InstanceKey: InstanceStatus] {
            Dictionary(uniqueKeysWithValues: database.all(model: Item.modelId, at: timestamp) { ($0, $1) })
        }
        #expect(instances(at: Timestamp.zero).isEmpty)
        #expect(instances(at: afterFirst) == [1: .created])
        #expect(instances(at: afterDelete) == [1: .deleted, 2: .created])
        #expect(instances(at: nil) == [1: .deleted, 2: .created, 3: .created])
    }

    @Test("all(model:at:) takes each instance's newest status at the timestamp, whatever order its records arrived in")
    func statusesAtTimeFromLateRecords() throws {
        let database = try SQLiteDatabase()
        let t1 = Timestamp(time: 100, counter: 0, replica: 1)
        let t2 = Timestamp(time: 200, counter: 0, replica: 2)
        let t3 = Timestamp(time: 300, counter: 0, replica: 1)
        // Instance 1: deleted at t3 arrives before its creation at t1; instance 2 only at t2,
        // with values of its own that are no statuses.
        database.set(InstanceStatus.deleted, for: .status(model: 9, instance: 1), timestamp: t3)
        database.set(InstanceStatus.created, for: .status(model: 9, instance: 1), timestamp: t1)
        database.set(InstanceStatus.created, for: .status(model: 9, instance: 2), timestamp: t2)
        database.set("title", for: Path(model: 9, instance: 2, property: 1), timestamp: t1)
        func instances(at timestamp: Timestamp) -> [InstanceKey: InstanceStatus] {
            Dictionary(uniqueKeysWithValues: database.all(model: 9, at: timestamp) { ($0, $1) })
        }
        #expect(instances(at: Timestamp(time: 99)).isEmpty)
        #expect(instances(at: t1) == [1: .created])
        #expect(instances(at: t2) == [1: .created, 2: .created])
        #expect(instances(at: t3) == [1: .deleted, 2: .created])
    }

    @Test("get(_:at:) finds the newest record at or before a timestamp")
    func valuesAtTime() throws {
        let database = try SQLiteDatabase()
        let path = Path(model: 5, instance: 1, property: 1)
        let t1 = Timestamp(time: 100, counter: 0, replica: 1)
        let t2 = Timestamp(time: 100, counter: 1, replica: 1)
        let t3 = Timestamp(time: 200, counter: 0, replica: 1)
        database.set("a", for: path, timestamp: t1)
        database.set("c", for: path, timestamp: t3)
        database.set("b", for: path, timestamp: t2) // late arrival: history only
        #expect(database.get(path) as String? == "c")
        #expect((database.get(path, at: Timestamp(time: 99)) as Timestamped<String>?) == nil)
        #expect((database.get(path, at: t1) as Timestamped<String>?) == Timestamped(value: "a", timestamp: t1))
        #expect((database.get(path, at: Timestamp(time: 150)) as Timestamped<String>?)?.value == "b")
        #expect((database.get(path, at: .max) as Timestamped<String>?)?.value == "c")
        #expect(database.history(of: path, as: String.self).map(\.value) == ["a", "b", "c"])
        #expect(database.latestRecord(at: path)?.timestamp == t3)
        #expect(database.latestRecord(at: path)?.value as? String == "c")
        #expect(database.historyStart == nil)

        // The same record again changes nothing, even with another value.
        database.set("again", for: path, timestamp: t3)
        #expect(database.get(path) as String? == "c")
        #expect(database.records(at: path).count == 3)
    }

    @Test("records(after:limit:) pages through records oldest first, by timestamp then path")
    func recordsAfter() throws {
        let database = try SQLiteDatabase()
        let stamp = Timestamp(time: 10, counter: 0, replica: 1)
        database.set(1, for: Path(model: 1, instance: 2, property: 1), timestamp: stamp)
        database.set(2, for: Path(model: 1, instance: 1, property: 2), timestamp: stamp)
        database.set(3, for: Path(model: 1, instance: 1, property: 1), timestamp: Timestamp(time: 5))
        database.set(4, for: Path(model: 0, instance: 9, property: 9), timestamp: Timestamp(time: 20))
        let all = database.records(after: nil)
        #expect(all.map { $0.value as? Int } == [3, 2, 1, 4])
        #expect(database.records(after: nil, limit: 2).map { $0.value as? Int } == [3, 2])
        #expect(database.records(after: nil, limit: 0).isEmpty)
        #expect(database.records(after: stamp, limit: nil).map { $0.value as? Int } == [4])
        #expect(database.records(after: Timestamp(time: 5), limit: 1).map(\.path) == [Path(model: 1, instance: 1, property: 2)])
    }

    @Test("Every record is stored once, whatever order and grouping it arrives in: alone or in batches, older than the current one, again, or replaced in the same batch", arguments: [1, 2, 3])
    func everyRecordOnce(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        var random = SplitMix64(seed: seed)
        let paths = (1 ... 4).map { Path(model: 7, instance: $0, property: 1) } + [.status(model: 7, instance: 1)]
        // 60 records over 5 paths; then 20 of them again.
        let unique: [Record] = (0 ..< 60).map { index in
            let path = paths[Int.random(in: 0 ..< paths.count, using: &random)]
            let timestamp = Timestamp(time: Int64.random(in: 1 ... 1_000, using: &random), counter: UInt32(index), replica: 1)
            let value: any DatabaseValue = path.property == PropertyKey.instanceId ? (index % 3 == 0 ? InstanceStatus.deleted : .created) : "v\(index)"
            return Record(path: path, timestamp: timestamp, value: value)
        }
        let arrivals = (unique + unique.shuffled(using: &random).prefix(20)).shuffled(using: &random)
        do {
            let database = try SQLiteDatabase(path: file)
            var next = 0
            while next < arrivals.count {
                let count = Int.random(in: 1 ... 20, using: &random)
                let group = arrivals[next ..< min(arrivals.count, next + count)]
                if count % 3 == 0 {
                    for record in group { database.apply(record) }
                } else {
                    try database.batch { for record in group { database.apply(record) } }
                }
                next += count
            }
            database.close()
        }
        let database = try SQLiteDatabase(path: file)
        let stored = database.records(after: nil)
        let expected = unique.sorted { ($0.timestamp, $0.path) < ($1.timestamp, $1.path) }
        #expect(stored.map(\.path) == expected.map(\.path))
        #expect(stored.map(\.timestamp) == expected.map(\.timestamp))
        #expect(stored.map { "\($0.value)" } == expected.map { "\($0.value)" })
        for path in paths {
            let written = expected.filter { $0.path == path }
            #expect(database.records(at: path).map(\.timestamp) == written.map(\.timestamp))
            #expect(database.latestRecord(at: path)?.timestamp == written.last?.timestamp)
            // The state at each record's time is that record.
            for record in written where path.property != PropertyKey.instanceId {
                #expect((database.get(path, at: record.timestamp) as Timestamped<String>?)?.timestamp == record.timestamp)
            }
        }
        #expect(stored.count == unique.count)
    }

    @Test("records(after:) from one database apply to another with the same result")
    func replicate() throws {
        let source = try SQLiteDatabase(options: .init(clock: HybridLogicalClock(replica: 1)))
        let alice = Person.create(in: source, id: 1, name: "Alice", age: 3)
        alice.address = Address(street: "S", number: 2)
        alice.nickname = nil
        alice.friends = [alice]
        let target = try SQLiteDatabase(options: .init(clock: HybridLogicalClock(replica: 2)))
        for record in source.records(after: nil) {
            target.apply(record)
        }
        let copy = try #require(target.get(id: 1, of: Person.self))
        #expect(copy.name == "Alice")
        #expect(copy.age == 3)
        #expect(copy.address == Address(street: "S", number: 2))
        #expect(copy.nickname == nil)
        #expect(copy.friends.map(\.id) == [1])
        #expect(target.records(after: nil).count == source.records(after: nil).count)
    }

    @Test("A history view of a model reads the values of that time")
    func modelAtTime() throws {
        let database = try SQLiteDatabase()
        let item = Item.create(in: database, id: 1, title: "draft")
        let draft = database.clock.now()
        item.title = "final"
        let old: Timestamped<String>? = database.get(item.path(of: .title), at: draft)
        #expect(old?.value == "draft")
        #expect(item.title == "final")
    }
}

@Suite("SQLiteDatabase: keepsHistory false")
struct KeepsNoHistoryTests {

    @Test("Only current values are kept; history APIs answer from them")
    func currentOnly() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let options = SQLiteDatabase.Options(keepsHistory: false, clock: HybridLogicalClock(replica: 3))
        let database = try SQLiteDatabase(path: path, options: options)
        #expect(!database.keepsHistory)
        let item = Item.create(in: database, id: 1, title: "one")
        let afterCreate = database.clock.now()
        item.title = "two"
        let titlePath = item.path(of: .title)
        #expect(item.title == "two")
        #expect(database.records(at: titlePath).map { $0.value as? String } == ["two"])
        // Item 1's status and properties, and Item's description in the file's catalog.
        #expect(database.records(after: nil).count == 4)
        #expect(database.records(after: afterCreate, limit: nil).map(\.path) == [titlePath])
        // The value at an older time is unknown.
        #expect((database.get(titlePath, at: afterCreate) as Timestamped<String>?) == nil)
        #expect(database.all(model: Item.modelId, at: afterCreate) { id, _ in id } == [1])
        #expect(database.all(model: Item.modelId, at: .zero) { id, _ in id }.isEmpty)
        #expect(database.historyStart == database.latestRecord(at: titlePath)?.timestamp)
        // Newest still wins.
        database.set("old", for: titlePath, timestamp: Timestamp(time: 1))
        #expect(item.title == "two")
        database.close()

        let reopened = try SQLiteDatabase(path: path, options: options)
        #expect(reopened.get(id: 1, of: Item.self)?.title == "two")
    }

    @Test("A file keeps the history setting it was created with: the default options adopt it, an explicit other one throws")
    func modeMismatch() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let created = try SQLiteDatabase(path: path, options: .init(keepsHistory: false))
            Item.create(in: created, id: 1, title: "one")
            created.get(id: 1, of: Item.self)?.title = "two"
            created.close()
        }
        let adopted = try SQLiteDatabase(path: path)
        #expect(adopted.keepsHistory == false)
        #expect(adopted.get(id: 1, of: Item.self)?.title == "two")
        // Still no history: only the current record of the title.
        #expect(adopted.records(at: Path(model: 2, instance: 1, property: 1)).count == 1)
        adopted.close()
        #expect(throws: SQLiteDatabaseError.historyModeMismatch(path: path, fileKeepsHistory: false)) {
            _ = try SQLiteDatabase(path: path, options: .init(keepsHistory: true))
        }
        let explicit = try SQLiteDatabase(path: path, options: .init(keepsHistory: false))
        #expect(explicit.keepsHistory == false)
        // A new file keeps history by default.
        #expect(try SQLiteDatabase(path: directory.file("new.sqlite")).keepsHistory)
    }
}
