import Pathbase
import Testing

// Model ids 1000–1049.

@Model(id: 1000)
final class Counter {
    @Property(id: 1) var value: Int
    @Property(id: 2) var owner: Int
}

/// Many tasks writing to one database at the same time lose no write.
///
/// Each task writes its own paths: half of its writes go to a column all tasks share
/// (disjoint instance ids), half to a property only this task writes (instance ids that
/// every task also uses). Then every value is read back.
@Suite("Concurrent writes")
struct ConcurrentWriteTests {

    static let taskCount = 8
    static let writesPerTask = 100_000
    static let model: ModelKey = 1049

    /// The path and value of write `index` of task `task`.
    static func write(_ index: Int, of task: Int) -> (path: Path, value: Int) {
        let half = writesPerTask / 2
        if index < half {
            // Shared column, an instance range per task.
            return (Path(model: model, instance: task * half + index, property: 1), index * 10 + task)
        }
        // A column per task, the same instance ids in every task.
        return (Path(model: model, instance: index - half, property: 100 + task), -index - task)
    }

    static func writeConcurrently<D: Database & Sendable>(into database: D) async {
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    for index in 0..<writesPerTask {
                        let (path, value) = write(index, of: task)
                        database.set(value, for: path)
                    }
                }
            }
        }
    }

    /// Returns the number of writes whose value does not read back.
    static func lostWrites(in database: some Database) -> Int {
        var lost = 0
        for task in 0..<taskCount {
            for index in 0..<writesPerTask {
                let (path, value) = write(index, of: task)
                let stored: Int? = database.get(path)
                if stored != value { lost += 1 }
            }
        }
        return lost
    }

    static func createConcurrently<D: Database & Sendable>(in database: D, perTask: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<taskCount {
                group.addTask {
                    for index in 0..<perTask {
                        let counter = database.create(id: task * perTask + index, of: Counter.self)
                        counter.owner = task
                        counter.value += 1
                    }
                }
            }
        }
    }

    @Test("InMemoryDatabase keeps every concurrent write")
    func inMemoryDatabase() async {
        let database = InMemoryDatabase()
        await Self.writeConcurrently(into: database)
        #expect(database.count == Self.taskCount * Self.writesPerTask)
        #expect(Self.lostWrites(in: database) == 0)
    }

    @Test("InMemoryHistoryDatabase keeps every concurrent write and its record")
    func inMemoryHistoryDatabase() async {
        let database = InMemoryHistoryDatabase()
        await Self.writeConcurrently(into: database)
        #expect(Self.lostWrites(in: database) == 0)
        let records = database.records()
        #expect(records.count == Self.taskCount * Self.writesPerTask)
        // Oldest first, and no two writes share a timestamp.
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test("Instances created concurrently are all listed, with their values")
    func concurrentCreation() async {
        let perTask = 2_000
        let plain = InMemoryDatabase()
        let history = InMemoryHistoryDatabase()
        await Self.createConcurrently(in: plain, perTask: perTask)
        await Self.createConcurrently(in: history, perTask: perTask)

        for database in [plain, history] as [any Database] {
            let counters = database.all(of: Counter.self)
            #expect(counters.count == Self.taskCount * perTask)
            #expect(Set(counters.map(\.id)) == Set(0..<Self.taskCount * perTask))
            #expect(counters.allSatisfy { $0.owner == $0.id / perTask && $0.value == 1 })
        }
    }
}
