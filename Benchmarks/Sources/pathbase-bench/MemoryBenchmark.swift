import Pathbase

/// `pathbase-bench memory`: the in-memory databases, used through models, against a plain
/// `[Path: Any]` dictionary doing the same logical work in the same process.
enum MemoryBenchmark {

    static func run() {
        let count = 100_000
        let names = benchNames(count)
        let baseline = DictionaryBaseline(count: count, names: names)
        let memory = ModelWorkload(database: InMemoryDatabase(), count: count, names: names)
        compare("memory.create", operations: count, rounds: 5, { memory.create() }, baseline: { baseline.create() })
        compare("memory.set", operations: count * 3, { memory.set() }, baseline: { baseline.set() })
        compare("memory.get", operations: count * 3, { memory.get() }, baseline: { baseline.get() })
        compare("memory.all", operations: count, { memory.all() }, baseline: { baseline.all() })

        let history = ModelWorkload(database: InMemoryHistoryDatabase(), count: count, names: names)
        history.create()
        // Every round adds a record per property: the history grows as it would in use.
        compare("history.set", operations: count * 3, rounds: 5, { history.set() }, baseline: { baseline.set() })
        compare("history.get", operations: count * 3, { history.get() }, baseline: { baseline.get() })

        // A value at a date: flat from 10 to 10^5 records per path (binary search in long
        // histories). Baseline: the same lookups in histories of 10 records.
        let shortHistory = HistoryAtDateWorkload(recordsPerPath: 10)
        for (exponent, records) in [(3, 1_000), (5, 100_000)] {
            let longHistory = HistoryAtDateWorkload(recordsPerPath: records)
            compare("history.get-at-date.1e\(exponent)", operations: HistoryAtDateWorkload.lookups, { longHistory.lookUp() }, baseline: { shortHistory.lookUp() })
        }

        // Sync reads the records page by page. Baseline: the same pages sliced from a sorted array.
        let paging = mustSucceed { try RecordPagingWorkload(instances: BenchScale.count(20_000, smoke: 200)) }
        compare("history.records-after-page", operations: paging.records.count, { paging.pageDatabase() }, baseline: { paging.pageArray() })

        // Per-operation cost from 10^4 to 10^6 instances.
        for (exponent, size, rounds) in [(4, 10_000, 21), (5, 100_000, 7), (6, 1_000_000, 3)] {
            let sizeNames = benchNames(size)
            let sizeBaseline = DictionaryBaseline(count: size, names: sizeNames)
            sizeBaseline.create()
            let sizeMemory = ModelWorkload(database: InMemoryDatabase(), count: size, names: sizeNames)
            sizeMemory.create()
            compare("memory.get.1e\(exponent)", operations: size * 3, rounds: rounds, { sizeMemory.get() }, baseline: { sizeBaseline.get() })
            compare("memory.set.1e\(exponent)", operations: size * 3, rounds: rounds, { sizeMemory.set() }, baseline: { sizeBaseline.set() })
            let sizeHistory = ModelWorkload(database: InMemoryHistoryDatabase(), count: size, names: sizeNames)
            sizeHistory.create()
            compare("history.get.1e\(exponent)", operations: size * 3, rounds: rounds, { sizeHistory.get() }, baseline: { sizeBaseline.get() })
            compare("history.set.1e\(exponent)", operations: size * 3, rounds: rounds, { sizeHistory.set() }, baseline: { sizeBaseline.set() })
        }
    }
}

/// Creates, writes, reads and lists `count` BenchItems in one database.
final class ModelWorkload {
    let database: any Database
    let count: Int
    let names: [String]
    private(set) var items: [BenchItem] = []

    init(database: any Database, count: Int, names: [String]) {
        self.database = database
        self.count = count
        self.names = names
    }

    /// Creates every instance: status plus three properties each.
    func create() {
        var created: [BenchItem] = []
        created.reserveCapacity(count)
        for index in 0 ..< count {
            created.append(BenchItem.create(in: database, id: index, count: index, name: names[index], score: Double(index)))
        }
        items = created
    }

    /// Makes handles to instances created earlier, without writing.
    func attach() {
        items = (0 ..< count).map { BenchItem(database: database, id: $0) }
    }

    /// Writes three properties of every instance.
    func set() {
        for (index, item) in items.enumerated() {
            item.count = index &+ 1
            item.name = names[count - 1 - index]
            item.score = Double(index) * 0.5
        }
    }

    /// Reads three properties of every instance.
    func get() {
        var total = 0
        var score = 0.0
        for item in items {
            total &+= item.count
            total &+= item.name.utf8.count
            score += item.score
        }
        blackHole((total, score))
    }

    /// Lists the active instances.
    func all() {
        blackHole(database.all(of: BenchItem.self))
    }
}

/// The same work on a plain `[Path: Any]` dictionary.
final class DictionaryBaseline {
    let count: Int
    let names: [String]
    var values: [Path: Any] = [:]

    init(count: Int, names: [String]) {
        self.count = count
        self.names = names
    }

    func create() {
        for index in 0 ..< count {
            values[Path(model: 1, instance: index, property: 0)] = InstanceStatus.created
            values[Path(model: 1, instance: index, property: 1)] = index
            values[Path(model: 1, instance: index, property: 2)] = names[index]
            values[Path(model: 1, instance: index, property: 3)] = Double(index)
        }
    }

    func set() {
        for index in 0 ..< count {
            values[Path(model: 1, instance: index, property: 1)] = index &+ 1
            values[Path(model: 1, instance: index, property: 2)] = names[count - 1 - index]
            values[Path(model: 1, instance: index, property: 3)] = Double(index) * 0.5
        }
    }

    func get() {
        var total = 0
        var score = 0.0
        for index in 0 ..< count {
            total &+= values[Path(model: 1, instance: index, property: 1)] as? Int ?? 0
            total &+= (values[Path(model: 1, instance: index, property: 2)] as? String ?? "").utf8.count
            score += values[Path(model: 1, instance: index, property: 3)] as? Double ?? 0
        }
        blackHole((total, score))
    }

    func all() {
        var instances: [InstanceKey] = []
        for (path, value) in values where path.model == 1 && path.property == 0 {
            if let status = value as? InstanceStatus, status == .created { instances.append(path.instance) }
        }
        blackHole(instances)
    }
}

/// Reads values at random dates from paths with `recordsPerPath` records each.
final class HistoryAtDateWorkload {
    static let lookups = 100_000
    let database = InMemoryHistoryDatabase()
    let paths: [Path]
    let recordsPerPath: Int
    private var random: UInt64 = 0x9E37_79B9

    init(recordsPerPath: Int) {
        self.recordsPerPath = recordsPerPath
        // 10^6 records at most, over as many paths as fit.
        paths = (0 ..< max(1, 1_000_000 / recordsPerPath / 10)).map { Path(model: 1, instance: $0, property: 1) }
        for time in 0 ..< recordsPerPath {
            for path in paths {
                database.set(time, for: path, timestamp: Timestamp(time: Int64(time * 10), counter: 0, replica: 1))
            }
        }
    }

    func lookUp() {
        var total = 0
        for _ in 0 ..< Self.lookups {
            random = random &* 1_103_515_245 &+ 12_345
            let path = paths[Int((random >> 33) % UInt64(paths.count))]
            let time = Int64((random >> 20) % UInt64(recordsPerPath * 10))
            let value: Timestamped<Int>? = database.get(path, at: Timestamp(time: time, counter: 0, replica: 1))
            total &+= value?.value ?? 0
        }
        blackHole(total)
    }
}

/// Pages through the records of a history database (instances × 5 properties, written
/// once, in batches of 1000 instances where the database has batches) 500 at a time, and
/// through the same records in a sorted array.
final class RecordPagingWorkload {
    static let pageSize = 500
    let database: any HistoryDatabase
    /// The database's records, oldest first.
    let records: [Record]

    /// `batch` runs a group of writes (the database's `batch`, where it has one).
    init(instances: Int, database: any HistoryDatabase = InMemoryHistoryDatabase(), batch: (() -> Void) throws -> Void = { $0() }) throws {
        self.database = database
        for start in stride(from: 0, to: instances, by: 1000) {
            try batch {
                for instance in start ..< min(instances, start + 1000) {
                    for property in 1 ... 5 {
                        database.set(instance &* property, for: Path(model: 1, instance: instance, property: property))
                    }
                }
            }
        }
        records = database.records(after: nil, limit: nil)
    }

    func pageDatabase() {
        var cursor: Timestamp?
        var count = 0
        while true {
            let page = database.records(after: cursor, limit: Self.pageSize)
            guard let last = page.last else { break }
            count += page.count
            cursor = last.timestamp
        }
        blackHole(count)
    }

    func pageArray() {
        var cursor: Timestamp?
        var count = 0
        while true {
            var start = 0
            if let cursor {
                var end = records.count
                while start < end {
                    let middle = (start + end) / 2
                    if records[middle].timestamp <= cursor { start = middle + 1 } else { end = middle }
                }
            }
            let page = Array(records[start ..< min(start + Self.pageSize, records.count)])
            guard let last = page.last else { break }
            count += page.count
            cursor = last.timestamp
        }
        blackHole(count)
    }
}
