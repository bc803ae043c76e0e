import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1360–1374.

@Model(id: 1360)
final class Gauge {
    @Property(id: 1)
    var reading: Int

    @Property(id: 2)
    var label: String
}

@Suite("Pruning history")
struct PruningTests {

    private func prunable(_ kind: HistoryDatabaseKind) throws -> any PrunableHistoryDatabase {
        try #require(kind.make() as? any PrunableHistoryDatabase)
    }

    private func stamp(_ time: Int64) -> Timestamp {
        Timestamp(time: time, counter: 0, replica: 1)
    }

    private func reading(_ database: any Database, id: InstanceKey = 1) -> Int? {
        database.get(id: id, of: Gauge.self)?.reading
    }

    @Test("Pruning keeps the state at the date and everything after", arguments: HistoryDatabaseKind.prunable)
    func keepsStateAtDateAndAfter(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let gauge = Gauge.create(in: database, id: 1, reading: 1, label: "start")
        gauge.reading = 2
        let beforeCut = momentBetweenWrites()
        gauge.reading = 3
        gauge.label = "cut"
        let cut = momentBetweenWrites()
        gauge.reading = 4
        let afterCut = momentBetweenWrites()
        gauge.reading = 5
        let countBefore = database.records(after: nil).count

        try database.prune(before: cut)

        #expect(database.records(after: nil).count < countBefore)
        #expect(gauge.reading == 5)
        #expect(gauge.label == "cut")
        #expect(reading(database.view(at: cut)) == 3)
        #expect(database.view(at: cut).get(id: 1, of: Gauge.self)?.label == "cut")
        #expect(reading(database.view(at: afterCut)) == 4)
        #expect(database.history(of: gauge.path(of: .reading), as: Int.self).map(\.value) == [3, 4, 5])
        #expect(database.history(of: gauge.path(of: .label), as: String.self).map(\.value) == ["cut"])

        let early = database.view(at: beforeCut)
        #expect(early.isBeforeHistoryStart)
        #expect(reading(early) == nil)
    }

    @Test("historyStart is nil until pruned, then the pruning moment; it never moves back", arguments: HistoryDatabaseKind.prunable)
    func historyStart(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        #expect(database.historyStart == nil)
        try database.prune(before: stamp(200))
        #expect(database.historyStart == stamp(200))
        try database.prune(before: stamp(100))
        #expect(database.historyStart == stamp(200))
        let date = Date(timeIntervalSince1970: 1_000)
        try database.prune(before: date)
        #expect(database.historyStart == Timestamp(latestAt: date))
    }

    @Test("Views before the history start are empty and say so; views at or after are exact", arguments: HistoryDatabaseKind.prunable)
    func viewsAroundHistoryStart(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let gauge = Path(model: Gauge.modelId, instance: 1, property: 1)
        let status = Path.status(model: Gauge.modelId, instance: 1)
        database.set(InstanceStatus.created, for: status, timestamp: stamp(100))
        database.set(10, for: gauge, timestamp: stamp(100))
        database.set(20, for: gauge, timestamp: stamp(200))
        database.set(30, for: gauge, timestamp: stamp(300))
        try database.prune(before: stamp(250))

        for time: Int64 in [50, 100, 150, 200, 249] {
            let view = database.view(at: stamp(time))
            #expect(view.isBeforeHistoryStart)
            #expect(reading(view) == nil)
            #expect(view.get(id: 1, of: Gauge.self) == nil)
            #expect(view.all(of: Gauge.self).isEmpty)
            let raw: Int? = view.get(gauge)
            #expect(raw == nil)
        }
        for (time, expected): (Int64, Int) in [(250, 20), (299, 20), (300, 30), (1000, 30)] {
            let view = database.view(at: stamp(time))
            #expect(!view.isBeforeHistoryStart)
            #expect(reading(view) == expected)
            #expect(view.all(of: Gauge.self).map(\.id) == [1])
        }
        // Moving a view across the start switches between empty and exact.
        let moving = database.view(at: stamp(260))
        moving.moveView(to: stamp(10))
        #expect(moving.isBeforeHistoryStart)
        #expect(reading(moving) == nil)
        moving.moveView(to: stamp(300))
        #expect(reading(moving) == 30)
    }

    @Test("A view before the history start lists no records either", arguments: HistoryDatabaseKind.prunable)
    func viewBeforeStartHasNoRecords(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let gauge = Path(model: Gauge.modelId, instance: 1, property: 1)
        database.set(10, for: gauge, timestamp: stamp(100))
        database.set(30, for: gauge, timestamp: stamp(300))
        try database.prune(before: stamp(200))
        let view = database.view(at: stamp(150))
        #expect(view.isBeforeHistoryStart)
        #expect(view.records(after: nil).isEmpty)
        #expect(view.records(at: gauge).isEmpty)
        #expect(view.latestRecord(at: gauge) == nil)
    }

    @Test("A view of a view, and a view through a wrapper, know the history start", arguments: HistoryDatabaseKind.prunable)
    func historyStartThroughWrappers(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let gauge = Path(model: Gauge.modelId, instance: 1, property: 1)
        database.set(InstanceStatus.created, for: Path.status(model: Gauge.modelId, instance: 1), timestamp: stamp(100))
        database.set(10, for: gauge, timestamp: stamp(100))
        database.set(20, for: gauge, timestamp: stamp(180))
        database.set(30, for: gauge, timestamp: stamp(300))
        try database.prune(before: stamp(200))
        // At 150 the gauge read 10, but that record is gone: a view of 150 must be empty.
        #expect(reading(database.view(at: stamp(150))) == nil)

        let nested = database.view(at: stamp(1000)).view(at: stamp(150))
        let wrapped = HistoryDatabaseKind.undoable(over: database).view(at: stamp(150))
        #expect(nested.isBeforeHistoryStart)
        #expect(wrapped.isBeforeHistoryStart)
        #expect(reading(nested) == nil)
        #expect(reading(wrapped) == nil)
    }

    @Test("Instances keep the status they had at the pruning date", arguments: HistoryDatabaseKind.prunable)
    func statusesKept(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let kept = Gauge.create(in: database, id: 1, label: "kept")
        let removed = Gauge.create(in: database, id: 2, label: "removed")
        removed.delete()
        let cut = momentBetweenWrites()
        Gauge.create(in: database, id: 3, label: "later")
        kept.delete()
        try database.prune(before: cut)

        let view = database.view(at: cut)
        #expect(view.all(of: Gauge.self).map(\.id) == [1])
        #expect(view.get(id: 2, of: Gauge.self)?.status == .deleted)
        #expect(view.get(id: 2, of: Gauge.self)?.label == "removed")
        #expect(view.get(id: 3, of: Gauge.self) == nil)
        #expect(database.all(of: Gauge.self).map(\.id) == [3])
        #expect(database.get(id: 1, of: Gauge.self)?.status == .deleted)
    }

    @Test("A record exactly at the pruning timestamp is the state kept", arguments: HistoryDatabaseKind.prunable)
    func recordAtCut(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let path = Path(model: Gauge.modelId, instance: 1, property: 1)
        database.set(1, for: path, timestamp: stamp(100))
        database.set(2, for: path, timestamp: stamp(200))
        database.set(3, for: path, timestamp: stamp(300))
        try database.prune(before: stamp(200))
        #expect(database.history(of: path, as: Int.self).map(\.value) == [2, 3])
        let atCut: Timestamped<Int>? = database.get(path, at: stamp(200))
        #expect(atCut?.value == 2)
    }

    @Test("Pruning after every record keeps just the current state", arguments: HistoryDatabaseKind.prunable)
    func pruneEverything(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        for id in 1 ... 5 {
            let gauge = Gauge.create(in: database, id: id, reading: 0, label: "g\(id)")
            for value in 1 ... 4 { gauge.reading = value * id }
        }
        let paths = Set(database.records(after: nil).map(\.path))
        try database.prune(before: database.clock.now())
        #expect(database.records(after: nil).count == paths.count)
        for id in 1 ... 5 {
            #expect(reading(database, id: id) == 4 * id)
            #expect(database.get(id: id, of: Gauge.self)?.label == "g\(id)")
        }
        // Pruning again changes nothing.
        try database.prune(before: database.clock.now())
        #expect(database.records(after: nil).count == paths.count)
    }

    @Test("Writes after pruning are kept and visible in views", arguments: HistoryDatabaseKind.prunable)
    func writesAfterPruning(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let gauge = Gauge.create(in: database, id: 1, reading: 1)
        try database.prune(before: database.clock.now())
        let moment = database.clock.now()
        gauge.reading = 2
        gauge.reading = 3
        #expect(database.history(of: gauge.path(of: .reading), as: Int.self).map(\.value) == [1, 2, 3])
        #expect(reading(database.view(at: moment)) == 1)
        // Older records arriving late (from a sync) are still stored.
        database.set(0, for: gauge.path(of: .reading), timestamp: Timestamp(time: moment.time, counter: moment.counter, replica: 0))
        #expect(gauge.reading == 3)
    }

    @Test("Values of several types at one path survive pruning", arguments: HistoryDatabaseKind.prunable)
    func mixedTypesSurvive(kind: HistoryDatabaseKind) throws {
        let database = try prunable(kind)
        let path = Path(model: Gauge.modelId, instance: 9, property: 1)
        let other = Path(model: Gauge.modelId, instance: 8, property: 1)
        database.set(1, for: path, timestamp: stamp(100))
        database.set("text", for: path, timestamp: stamp(110))
        database.set(NoValue(), for: other, timestamp: stamp(120))
        database.set(2.5, for: path, timestamp: stamp(130))
        database.set(3, for: path, timestamp: stamp(140))
        database.set("kept", for: other, timestamp: stamp(150))
        database.set(4, for: path, timestamp: stamp(160))
        try database.prune(before: stamp(135))

        let values = database.records(at: path).map { "\($0.value)" }
        #expect(values == ["2.5", "3", "4"])
        let current: Int? = database.get(path)
        #expect(current == 4)
        let old: Timestamped<Double>? = database.get(path, at: stamp(135))
        #expect(old?.value == 2.5)
        let kept: String? = database.get(other)
        #expect(kept == "kept")
        #expect(database.records(at: other).count == 2)
    }

    @Test("Random histories: after pruning, every view from the start on equals the unpruned one", arguments: HistoryDatabaseKind.prunable)
    func randomHistories(kind: HistoryDatabaseKind) throws {
        var generator = SplitMix64(seed: 1360)
        for _ in 0 ..< 20 {
            let pruned = try prunable(kind)
            let reference = InMemoryHistoryDatabase()
            var times: [Int64] = []
            for _ in 0 ..< 200 {
                let time = Int64.random(in: 1 ... 1000, using: &generator)
                let instance = Int.random(in: 1 ... 6, using: &generator)
                let property = Int.random(in: 0 ... 2, using: &generator)
                let path = Path(model: Gauge.modelId, instance: instance, property: property)
                let status: InstanceStatus = Bool.random(using: &generator) ? .created : .deleted
                times.append(time)
                for database in [pruned, reference] as [any HistoryDatabase] {
                    if property == 0 {
                        database.set(status, for: path, timestamp: stamp(time))
                    } else if property == 1 {
                        database.set(Int(time), for: path, timestamp: stamp(time))
                    } else {
                        database.set("v\(time)", for: path, timestamp: stamp(time))
                    }
                }
            }
            let cut = Int64.random(in: 1 ... 1000, using: &generator)
            try pruned.prune(before: stamp(cut))
            #expect(pruned.records(after: nil).count <= reference.records(after: nil).count)

            for time in ([cut, 1001] + times.filter { $0 >= cut }) {
                let left = pruned.view(at: stamp(time))
                let right = reference.view(at: stamp(time))
                #expect(snapshot(of: left) == snapshot(of: right), "at \(time), pruned before \(cut)")
            }
            for time in times where time < cut {
                let view = pruned.view(at: stamp(time))
                #expect(view.isBeforeHistoryStart)
                #expect(snapshot(of: view).isEmpty)
            }
        }
    }

    /// Every status and property value of the test model's paths, as text.
    private func snapshot(of view: HistoryView) -> [String: String] {
        var result: [String: String] = [:]
        for instance in 1 ... 6 {
            let status: InstanceStatus? = view.get(Path.status(model: Gauge.modelId, instance: instance))
            let number: Int? = view.get(Path(model: Gauge.modelId, instance: instance, property: 1))
            let text: String? = view.get(Path(model: Gauge.modelId, instance: instance, property: 2))
            if let status { result["\(instance).s"] = "\(status)" }
            if let number { result["\(instance).n"] = "\(number)" }
            if let text { result["\(instance).t"] = text }
        }
        for (instance, status) in view.all(model: Gauge.modelId, where: { ($0, $1) }) {
            result["\(instance).all"] = "\(status)"
        }
        return result
    }
}
