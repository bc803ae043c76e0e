import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 900–949.

@Model(id: 900)
final class Document {
    @Property(id: 1) var title: String
    @Property(id: 2) var revision: Int
}

@Suite("InMemoryHistoryDatabase: history, timestamps and records")
struct InMemoryHistoryDatabaseTests {

    private let path = Path(model: 949, instance: 1, property: 1)

    private func stamp(_ time: Int64, counter: UInt32 = 0) -> Timestamp {
        Timestamp(time: time, counter: counter, replica: 1)
    }

    @Test("Records withdrawn anywhere in long histories (how an undoable batch is taken back): every date reads the newest record left", arguments: [1, 2, 3] as [UInt64])
    func withdrawnRecords(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let database = InMemoryHistoryDatabase()
        var written: [Int: [(time: Int64, value: Int)]] = [:]
        func path(_ instance: Int) -> Path { Path(model: 949, instance: instance, property: 3) }
        for instance in 1 ... 5 {
            // Around the length where a history gets its own index (32); the last one loses all.
            let count = [5, 33, 40, 300, 3][instance - 1]
            var times = Array(Set((0 ..< count).map { _ in Int64.random(in: 1 ... 1_000_000, using: &random) }))
            times.shuffle(using: &random)
            for time in times {
                let value = Int.random(in: 0 ... 1_000, using: &random)
                database.set(value, for: path(instance), timestamp: stamp(time))
                written[instance, default: []].append((time, value))
            }
        }
        var withdrawn: [SyncRecord.Key] = [SyncRecord.Key(path: path(1), timestamp: stamp(2_000_000))] // never stored
        for (instance, records) in written {
            let leaving = instance == 5 ? records : records.filter { _ in Int.random(in: 0 ..< 3, using: &random) == 0 }
            withdrawn += leaving.map { SyncRecord.Key(path: path(instance), timestamp: stamp($0.time)) }
            written[instance] = records.filter { record in !leaving.contains { $0.time == record.time } }.sorted { $0.time < $1.time }
        }
        #expect(withdrawn.dropFirst().allSatisfy { database.holdsRecord(at: $0.path, timestamp: $0.timestamp) })
        database.withdraw(withdrawn.shuffled(using: &random))
        #expect(!withdrawn.contains { database.holdsRecord(at: $0.path, timestamp: $0.timestamp) })
        // A record arriving late after the withdrawal still links in order.
        database.set(-7, for: path(3), timestamp: stamp(500_001, counter: 1))
        written[3] = (written[3, default: []] + [(500_001, -7)]).sorted { $0.time < $1.time }
        for instance in 1 ... 5 {
            let records = written[instance, default: []]
            #expect(database.records(at: path(instance)).map(\.timestamp.time) == records.map(\.time))
            #expect(database.get(path(instance)) as Int? == records.last?.value, "instance \(instance), seed \(seed)")
            for _ in 0 ..< 200 {
                let time = Int64.random(in: 0 ... 1_000_001, using: &random)
                let found: Timestamped<Int>? = database.get(path(instance), at: stamp(time, counter: 2))
                #expect(found?.value == records.last { $0.time <= time }?.value, "instance \(instance) at \(time), seed \(seed)")
            }
        }
    }

    @Test("Long histories, written in any order and pruned: the value at every date is the newest record at or before it", arguments: [1, 2, 3] as [UInt64])
    func longHistoriesAtDates(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let database = InMemoryHistoryDatabase()
        var written: [Int: [(Int64, Int)]] = [:] // instance -> (time, value)
        for instance in 1 ... 4 {
            // Lengths around the point where a history gets its own index (32 records).
            let count = [5, 33, 40, 300][instance - 1]
            var times = Array(Set((0 ..< count).map { _ in Int64.random(in: 1 ... 1_000_000, using: &random) }))
            times.shuffle(using: &random) // late arrivals link between their neighbours
            for time in times {
                let value = Int.random(in: 0 ... 1_000, using: &random)
                database.set(value, for: Path(model: 949, instance: instance, property: 2), timestamp: stamp(time))
                written[instance, default: []].append((time, value))
            }
        }
        func check() {
            for (instance, records) in written {
                let sorted = records.sorted { $0.0 < $1.0 }
                for _ in 0 ..< 200 {
                    let time = Int64.random(in: 0 ... 1_000_001, using: &random)
                    let expected = sorted.last { $0.0 <= time }?.1
                    let found: Timestamped<Int>? = database.get(Path(model: 949, instance: instance, property: 2), at: stamp(time))
                    #expect(found?.value == expected, "instance \(instance) at \(time), seed \(seed)")
                }
            }
        }
        check()
        let cut: Int64 = 500_000
        database.prune(before: stamp(cut))
        for (instance, records) in written {
            // The state at the cut stays (as the oldest record), everything after it too.
            let sorted = records.sorted { $0.0 < $1.0 }
            let atCut = sorted.last { $0.0 <= cut }
            written[instance] = (atCut.map { [$0] } ?? []) + sorted.filter { $0.0 > cut }
        }
        for (instance, records) in written {
            for (time, value) in records {
                let found: Timestamped<Int>? = database.get(Path(model: 949, instance: instance, property: 2), at: stamp(max(time, cut)))
                if time > cut { #expect(found?.value == value) }
            }
        }
        // More writes after pruning, then every date again (after the cut).
        for instance in 1 ... 4 {
            var time = Int64.random(in: cut ... 1_000_000, using: &random)
            while written[instance, default: []].contains(where: { $0.0 == time }) { time += 1 }
            database.set(-1, for: Path(model: 949, instance: instance, property: 2), timestamp: stamp(time, counter: 1))
            written[instance, default: []].append((time, -1))
            written[instance]?.sort { $0.0 < $1.0 }
        }
        for (instance, records) in written {
            for _ in 0 ..< 200 {
                let time = Int64.random(in: cut ... 1_000_001, using: &random)
                let expected = records.last { $0.0 <= time }?.1
                let found: Timestamped<Int>? = database.get(Path(model: 949, instance: instance, property: 2), at: stamp(time, counter: 2))
                #expect(found?.value == expected, "after pruning: instance \(instance) at \(time), seed \(seed)")
            }
        }
    }

    @Test("get(_:at:) returns the value a path held at an older timestamp")
    func valueAtTimestamp() {
        let database = InMemoryHistoryDatabase()
        let beforeAll = database.clock.now()
        database.set("draft", for: path)
        let afterDraft = database.clock.now()
        database.set("final", for: path)

        let old: Timestamped<String>? = database.get(path, at: afterDraft)
        let current: Timestamped<String>? = database.get(path, at: nil)
        let none: Timestamped<String>? = database.get(path, at: beforeAll)
        #expect(old?.value == "draft")
        #expect(current?.value == "final")
        #expect(none == nil)
        #expect(old!.timestamp < afterDraft)
        #expect(current!.timestamp > afterDraft)
        let plain: String? = database.get(path)
        #expect(plain == "final")
    }

    @Test("get(_:at:) with explicit timestamps finds the newest record at or before")
    func valueAtExplicitTimestamps() {
        let database = InMemoryHistoryDatabase()
        database.set(10, for: path, timestamp: stamp(100))
        database.set(20, for: path, timestamp: stamp(200))
        database.set(30, for: path, timestamp: stamp(300))

        func value(at time: Int64) -> Int? {
            let entry: Timestamped<Int>? = database.get(path, at: stamp(time))
            return entry?.value
        }
        #expect(value(at: 99) == nil)
        #expect(value(at: 100) == 10)
        #expect(value(at: 199) == 10)
        #expect(value(at: 200) == 20)
        #expect(value(at: 250) == 20)
        #expect(value(at: 1000) == 30)
        let exact: Timestamped<Int>? = database.get(path, at: stamp(200))
        #expect(exact == Timestamped(value: 20, timestamp: stamp(200)))
    }

    @Test("A write with an older timestamp is kept but does not change the current value")
    func olderWriteDoesNotWin() {
        let database = InMemoryHistoryDatabase()
        database.set("new", for: path, timestamp: stamp(200))
        database.set("old", for: path, timestamp: stamp(100))

        let current: String? = database.get(path)
        #expect(current == "new")
        let records = database.records(at: path)
        #expect(records.map(\.timestamp) == [stamp(100), stamp(200)])
        #expect(records.compactMap { $0.value as? String } == ["old", "new"])
        let atOld: Timestamped<String>? = database.get(path, at: stamp(150))
        #expect(atOld?.value == "old")
    }

    @Test("A write with a newer timestamp wins, whatever order writes arrive in")
    func newestWins() {
        let forward = InMemoryHistoryDatabase()
        let backward = InMemoryHistoryDatabase()
        let writes = (1 ... 20).map { (value: $0, timestamp: stamp(Int64($0 * 10))) }
        for write in writes { forward.set(write.value, for: path, timestamp: write.timestamp) }
        for write in writes.reversed() { backward.set(write.value, for: path, timestamp: write.timestamp) }
        let a: Int? = forward.get(path)
        let b: Int? = backward.get(path)
        #expect(a == 20)
        #expect(b == 20)
        #expect(forward.records(at: path).map(\.timestamp) == backward.records(at: path).map(\.timestamp))
    }

    @Test("Writing the same record twice changes nothing")
    func duplicateWrite() {
        let database = InMemoryHistoryDatabase()
        database.set("value", for: path, timestamp: stamp(100))
        database.set("later", for: path, timestamp: stamp(200))
        let before = database.records()
        database.set("value", for: path, timestamp: stamp(100))
        database.set("later", for: path, timestamp: stamp(200))
        let after = database.records()
        #expect(after.count == before.count)
        #expect(after.map(\.timestamp) == before.map(\.timestamp))
        #expect(database.records(at: path).count == 2)
        let current: String? = database.get(path)
        #expect(current == "later")
    }

    @Test("all(model:at:where:) reports instances as they were at a timestamp")
    func instancesAtTimestamp() {
        let database = InMemoryHistoryDatabase()
        let early: Document = database.create(id: 1)
        let beforeSecond = database.clock.now()
        let late: Document = database.create(id: 2)
        early.delete()
        let now = database.clock.now()

        func statuses(at timestamp: Timestamp?) -> [InstanceKey: InstanceStatus] {
            let pairs = database.all(model: Document.modelId, at: timestamp) { ($0, $1) }
            return Dictionary(uniqueKeysWithValues: pairs)
        }
        #expect(statuses(at: beforeSecond) == [1: .created])
        #expect(statuses(at: now) == [1: .deleted, 2: .created])
        #expect(statuses(at: nil) == [1: .deleted, 2: .created])
        #expect(statuses(at: .zero).isEmpty)
        #expect(database.all(of: Document.self) == [late])
    }

    @Test("records(after:limit:) returns newer records, oldest first, at most limit")
    func recordsAfter() {
        let database = InMemoryHistoryDatabase()
        let times: [Int64] = [50, 10, 40, 20, 30, 60, 70]
        for (index, time) in times.enumerated() {
            let path = Path(model: 949, instance: index % 3, property: 1 + index % 2)
            database.set(Int(time), for: path, timestamp: stamp(time))
        }

        #expect(database.records().map(\.timestamp.time) == [10, 20, 30, 40, 50, 60, 70])
        #expect(database.records(after: nil, limit: nil).count == 7)
        #expect(database.records(after: stamp(30)).map(\.timestamp.time) == [40, 50, 60, 70])
        #expect(database.records(after: stamp(30), limit: 2).map(\.timestamp.time) == [40, 50])
        #expect(database.records(after: nil, limit: 3).map(\.timestamp.time) == [10, 20, 30])
        #expect(database.records(after: stamp(70)).isEmpty)
        #expect(database.records(after: nil, limit: 0).isEmpty)
        // Each record carries its path and value.
        let first = database.records(after: stamp(35), limit: 1)
        #expect(first.first?.path == Path(model: 949, instance: 2, property: 1))
        #expect(first.first?.value as? Int == 40)
    }

    @Test("Paging through records with records(after:limit:) visits every record once")
    func paging() {
        let database = InMemoryHistoryDatabase()
        for instance in 0 ..< 25 {
            database.set(instance, for: Path(model: 949, instance: instance, property: 1))
        }
        var cursor: Timestamp?
        var seen: [Int] = []
        while true {
            let page = database.records(after: cursor, limit: 4)
            if page.isEmpty { break }
            #expect(page.count <= 4)
            seen += page.compactMap { $0.value as? Int }
            cursor = page.last?.timestamp
        }
        #expect(seen == Array(0 ..< 25))
    }

    /// A record as the records(after:) tests compare it.
    private struct RecordKey: Equatable, CustomStringConvertible {
        let path: Path
        let timestamp: Timestamp
        let value: String

        init(_ record: Record) {
            self.init(path: record.path, timestamp: record.timestamp, value: "\(record.value)")
        }

        init(path: Path, timestamp: Timestamp, value: String) {
            self.path = path
            self.timestamp = timestamp
            self.value = value
        }

        var description: String { "\(path)@\(timestamp.time).\(timestamp.counter).\(timestamp.replica)=\(value)" }
    }

    /// What a records(after:) test wrote, per path and timestamp: the first write of a
    /// (path, timestamp) counts, as in the database.
    private struct WrittenRecords {
        var values: [Path: [Timestamp: String]] = [:]

        mutating func add(_ value: String, at path: Path, _ timestamp: Timestamp) {
            if values[path, default: [:]][timestamp] == nil { values[path, default: [:]][timestamp] = value }
        }

        /// Every record by timestamp (time, counter, replica), then model, instance, property.
        var chronological: [RecordKey] {
            values.flatMap { path, records in records.map { RecordKey(path: path, timestamp: $0.key, value: $0.value) } }
                .sorted {
                    let (l, r) = ($0.timestamp, $1.timestamp)
                    return (l.time, l.counter, l.replica, $0.path.model, $0.path.instance, $0.path.property)
                        < (r.time, r.counter, r.replica, $1.path.model, $1.path.instance, $1.path.property)
                }
        }
    }

    /// Checks records(after:limit:) against `expected` (every record, oldest first): all at
    /// once; paged with limits 1, 3 and 500 as sync pages (a full page's last timestamp may
    /// continue on the next page: those records are read again with a larger limit), each
    /// page exactly the next records; and after random cursors with random limits.
    private func expectExactPages(of database: InMemoryHistoryDatabase, _ expected: [RecordKey], random: inout SplitMix64, _ label: String) {
        #expect(database.records(after: nil, limit: nil).map(RecordKey.init) == expected, "all records, \(label)")
        #expect(database.records(after: nil, limit: 0).isEmpty)
        func newer(than cursor: Timestamp?) -> ArraySlice<RecordKey> {
            guard let cursor else { return expected[...] }
            return expected[(expected.firstIndex { $0.timestamp > cursor } ?? expected.endIndex)...]
        }
        for limit in [1, 3, 500] {
            var cursor: Timestamp?
            var pageLimit = limit
            var collected: [RecordKey] = []
            while true {
                let page = database.records(after: cursor, limit: pageLimit).map(RecordKey.init)
                let wanted = Array(newer(than: cursor).prefix(pageLimit))
                guard page == wanted else {
                    Issue.record("page of \(pageLimit) after \(String(describing: cursor)): \(page) instead of \(wanted), \(label)")
                    return
                }
                guard page.count == pageLimit, let last = page.last?.timestamp else {
                    collected += page
                    break
                }
                let whole = page.prefix { $0.timestamp != last }
                if whole.isEmpty {
                    pageLimit *= 2
                    continue
                }
                collected += whole
                cursor = whole.last?.timestamp
                pageLimit = limit
            }
            #expect(collected == expected, "paged by \(limit), \(label)")
        }
        for _ in 0 ..< 30 {
            let cursor =
                Bool.random(using: &random)
                ? expected.randomElement(using: &random)?.timestamp
                : Timestamp(time: Int64.random(in: -1 ... 1_001, using: &random), counter: 1, replica: 3)
            let limit = Int.random(in: 0 ... 12, using: &random)
            let page = database.records(after: cursor, limit: limit).map(RecordKey.init)
            #expect(page == Array(newer(than: cursor).prefix(limit)), "\(limit) after \(String(describing: cursor)), \(label)")
        }
    }

    /// A random path of models 947–948, instances 0–5, properties 1–3.
    private func randomPath(using random: inout SplitMix64) -> Path {
        Path(model: Int.random(in: 947 ... 948, using: &random), instance: Int.random(in: 0 ... 5, using: &random), property: Int.random(in: 1 ... 3, using: &random))
    }

    /// Writes `count` records at random paths: mostly older timestamps in any order (as sync
    /// applies them), some reusing a timestamp already written on another path, some newer
    /// than all so far (local writes); a few values of another type than the column's.
    private func writeRandomRecords(_ count: Int, to database: InMemoryHistoryDatabase, _ written: inout WrittenRecords, newestTime: inout Int64, random: inout SplitMix64) {
        var used: [Timestamp] = []
        for _ in 0 ..< count {
            let path = randomPath(using: &random)
            let timestamp: Timestamp
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 2 where !used.isEmpty:
                timestamp = used.randomElement(using: &random) ?? stamp(0)
            case 0 ..< 3:
                newestTime += Int64.random(in: 0 ... 1, using: &random)
                timestamp = Timestamp(time: newestTime, counter: UInt32.random(in: 0 ... 1, using: &random), replica: 1)
            default:
                timestamp = Timestamp(
                    time: Int64.random(in: 0 ... max(1, newestTime), using: &random), counter: UInt32.random(in: 0 ... 1, using: &random), replica: UInt32.random(in: 1 ... 2, using: &random))
            }
            used.append(timestamp)
            if Int.random(in: 0 ..< 20, using: &random) == 0 {
                let value = "s\(Int.random(in: 0...99, using: &random))"
                database.set(value, for: path, timestamp: timestamp)
                written.add(value, at: path, timestamp)
            } else {
                let value = Int.random(in: 0 ... 9_999, using: &random)
                database.set(value, for: path, timestamp: timestamp)
                written.add("\(value)", at: path, timestamp)
            }
            newestTime = max(newestTime, timestamp.time)
        }
    }

    @Test("records(after:limit:) paged with any limit gives every record once, ordered by timestamp then path, however the records were written", arguments: [1, 2, 3] as [UInt64])
    func pagingMatchesSortedRecords(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let database = InMemoryHistoryDatabase()
        var written = WrittenRecords()
        var newestTime: Int64 = 100
        expectExactPages(of: database, [], random: &random, "empty, seed \(seed)")
        for round in 0 ..< 6 {
            // Rounds of writes between reads: each read merges the late records in.
            writeRandomRecords([1, 5, 60, 150, 150, 300][round], to: database, &written, newestTime: &newestTime, random: &random)
            expectExactPages(of: database, written.chronological, random: &random, "round \(round), seed \(seed)")
        }
        #expect(written.chronological.count > 500)
    }

    private struct AbortedBatch: Error {}

    @Test("records(after:limit:) stays exact after pruning, a withdrawn batch, withdrawn records and late records following a read", arguments: [1, 2, 3] as [UInt64])
    func pagingAfterCompaction(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = InMemoryHistoryDatabase()
        var written = WrittenRecords()
        var newestTime: Int64 = 100
        writeRandomRecords(400, to: database, &written, newestTime: &newestTime, random: &random)
        expectExactPages(of: database, written.chronological, random: &random, "written, seed \(seed)")

        func prune(at time: Int64) {
            let cut = Timestamp(time: time, counter: 0, replica: 2)
            database.prune(before: cut)
            for (path, records) in written.values {
                let atCut = records.keys.filter { $0 <= cut }.max()
                written.values[path] = records.filter { $0.key > cut || $0.key == atCut }
            }
        }
        prune(at: newestTime / 2)
        expectExactPages(of: database, written.chronological, random: &random, "pruned, seed \(seed)")

        // Late records after a read, some older than the cut.
        writeRandomRecords(100, to: database, &written, newestTime: &newestTime, random: &random)
        expectExactPages(of: database, written.chronological, random: &random, "late after pruning, seed \(seed)")

        // A batch that throws withdraws its records (stamped by the clock: the newest).
        let undoable = UndoableDatabase(wrapping: database)
        #expect(throws: AbortedBatch.self) {
            try undoable.batch {
                for value in 0 ..< 20 { undoable.set(value, for: randomPath(using: &random)) }
                throw AbortedBatch()
            }
        }
        expectExactPages(of: database, written.chronological, random: &random, "batch withdrawn, seed \(seed)")

        // Records withdrawn anywhere, with late records not yet merged in (written after the
        // last read), and one key never stored.
        writeRandomRecords(50, to: database, &written, newestTime: &newestTime, random: &random)
        let all = written.chronological
        var withdrawn = all.filter { _ in Int.random(in: 0 ..< 4, using: &random) == 0 }
            .map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }
        withdrawn.append(SyncRecord.Key(path: randomPath(using: &random), timestamp: stamp(-5)))
        database.withdraw(withdrawn.shuffled(using: &random))
        for key in withdrawn { written.values[key.path]?[key.timestamp] = nil }
        expectExactPages(of: database, written.chronological, random: &random, "records withdrawn, seed \(seed)")

        // Late records, then pruning before any read merges them in.
        writeRandomRecords(100, to: database, &written, newestTime: &newestTime, random: &random)
        prune(at: newestTime * 3 / 4)
        expectExactPages(of: database, written.chronological, random: &random, "late then pruned, seed \(seed)")
        writeRandomRecords(100, to: database, &written, newestTime: &newestTime, random: &random)
        expectExactPages(of: database, written.chronological, random: &random, "late after all, seed \(seed)")
    }

    @Test("history(of:as:) lists the values of a path, oldest first")
    func historyOfPath() {
        let database = InMemoryHistoryDatabase()
        let document = Document.create(in: database, id: 1, title: "Draft", revision: 1)
        document.title = "Review"
        document.title = "Final"
        document.revision += 1

        let titles = database.history(of: document.path(of: .title), as: String.self)
        #expect(titles.map(\.value) == ["Draft", "Review", "Final"])
        #expect(titles.map(\.timestamp) == titles.map(\.timestamp).sorted())
        #expect(Set(titles.map(\.timestamp)).count == 3)
        #expect(database.history(of: document.path(of: .revision), as: Int.self).map(\.value) == [1, 2])
        #expect(database.history(of: document.path(of: .title), as: Int.self).isEmpty)
        let statuses: [Timestamped<InstanceStatus>] = database.history(of: Path.status(model: Document.modelId, instance: 1))
        #expect(statuses.map(\.value) == [.created])
    }

    @Test("apply(_:) stores a record with its own timestamp and moves the clock past it")
    func applyRecord() {
        let source = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let target = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let future = Timestamp(time: source.clock.now().time + 3_600_000_000, counter: 5, replica: 1)
        source.set("from the future", for: path, timestamp: future)

        let record = source.records().first!
        target.apply(record)
        let applied: Timestamped<String>? = target.get(path, at: nil)
        #expect(applied == Timestamped(value: "from the future", timestamp: future))
        #expect(target.clock.now() > future)

        // A local write after the apply wins over the applied record.
        target.set("local", for: path)
        let current: String? = target.get(path)
        #expect(current == "local")
    }

    @Test("Applying all records in any order gives the same current state")
    func applyConverges() {
        let source = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 1))
        let document = Document.create(in: source, id: 1, title: "One", revision: 1)
        document.title = "Two"
        document.revision = 2
        let other: Document = source.create(id: 2)
        other.delete()

        let inOrder = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 2))
        let reversed = InMemoryHistoryDatabase(clock: HybridLogicalClock(replica: 3))
        let records = source.records()
        records.forEach(inOrder.apply)
        records.reversed().forEach(reversed.apply)
        records.forEach(reversed.apply) // duplicates change nothing

        for database in [inOrder, reversed] {
            let copy: Document? = database.get(id: 1)
            #expect(copy?.title == "Two")
            #expect(copy?.revision == 2)
            #expect(database.get(id: 2, of: Document.self)?.status == .deleted)
            #expect(database.records().count == records.count)
        }
    }

    @Test("A record keeps the type it was written with")
    func recordValueType() {
        let database = InMemoryHistoryDatabase()
        database.set(Address(street: "Elm", number: 3), for: path)
        let record = database.records(at: path).first
        #expect(record?.value as? Address == Address(street: "Elm", number: 3))
        #expect(record?.path == path)
    }
}
