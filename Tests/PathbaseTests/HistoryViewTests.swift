import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1300–1319.

@Model(id: 1300)
final class Exhibit {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var visitors: Int

    @Reference(id: 3)
    var neighbour: Exhibit?

    @ReferenceList(id: 4)
    var related: [Exhibit]
}

@Model(id: 1301)
final class Lantern {
    @Property(id: 1)
    var brightness: Int
}

/// Returns a date strictly after every write made before the call and strictly before
/// every write made after it (timestamps have microsecond resolution).
func momentBetweenWrites() -> Date {
    Thread.sleep(forTimeInterval: 0.002)
    let date = Date()
    Thread.sleep(forTimeInterval: 0.002)
    return date
}

@Suite("History views: the database as it was")
struct HistoryViewTests {

    private func ids<Model: ModelProtocol>(_ models: [Model]) -> Set<InstanceKey> {
        Set(models.map(\.id))
    }

    // MARK: Values

    @Test("A view at a date shows the values of that date", arguments: HistoryDatabaseKind.allCases)
    func valuesAtDate(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "Draft", visitors: 1)
        let early = momentBetweenWrites()
        exhibit.title = "Final"
        exhibit.visitors = 2
        let late = momentBetweenWrites()
        exhibit.visitors = 3

        let earlyView = database.view(at: early)
        #expect(earlyView.get(id: 1, of: Exhibit.self)?.title == "Draft")
        #expect(earlyView.get(id: 1, of: Exhibit.self)?.visitors == 1)
        let lateView = database.view(at: late)
        #expect(lateView.get(id: 1, of: Exhibit.self)?.title == "Final")
        #expect(lateView.get(id: 1, of: Exhibit.self)?.visitors == 2)
        #expect(exhibit.title == "Final")
        #expect(exhibit.visitors == 3)
    }

    @Test("A view at a timestamp shows every write at or before it", arguments: HistoryDatabaseKind.allCases)
    func valuesAtTimestamp(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "One")
        let afterOne = database.clock.now()
        exhibit.title = "Two"
        let two = database.latestRecord(at: exhibit.path(of: .title))!.timestamp
        exhibit.title = "Three"

        #expect(database.view(at: afterOne).get(id: 1, of: Exhibit.self)?.title == "One")
        #expect(database.view(at: two).get(id: 1, of: Exhibit.self)?.title == "Two")
        #expect(database.view(at: Timestamp.max).get(id: 1, of: Exhibit.self)?.title == "Three")
        let raw: String? = database.view(at: two).get(exhibit.path(of: .title))
        #expect(raw == "Two")
    }

    @Test("A view's timestamp is the latest timestamp at its date", arguments: HistoryDatabaseKind.allCases)
    func viewTimestamp(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        #expect(database.view(at: date).timestamp == Timestamp(latestAt: date))
        let stamp = Timestamp(time: 42, counter: 3, replica: 9)
        #expect(database.view(at: stamp).timestamp == stamp)
        #expect(database.view(at: stamp).base === database)
    }

    @Test("References and reference lists read as they were", arguments: HistoryDatabaseKind.allCases)
    func referencesAsTheyWere(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let first = Exhibit.create(in: database, id: 1, title: "First")
        let second = Exhibit.create(in: database, id: 2, title: "Second")
        let before = momentBetweenWrites()
        first.neighbour = second
        first.related = [second, first]
        second.title = "Renamed"

        let view = database.view(at: before)
        let old = view.get(id: 1, of: Exhibit.self)
        #expect(old?.neighbour == nil)
        #expect(old?.related.isEmpty == true)

        view.moveView(to: Timestamp.max)
        #expect(old?.neighbour?.id == 2)
        #expect(old?.neighbour?.title == "Renamed")
        #expect(old?.related.map(\.id) == [2, 1])
        // Fetched through the view, the references live in the view as well.
        #expect(old?.neighbour?.database === view)
    }

    @Test("A view before any write is empty", arguments: HistoryDatabaseKind.allCases)
    func viewBeforeEverything(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let before = momentBetweenWrites()
        Exhibit.create(in: database, id: 1, title: "Later")
        for view in [database.view(at: before), database.view(at: Date.distantPast), database.view(at: Timestamp.zero)] {
            #expect(view.get(id: 1, of: Exhibit.self) == nil)
            #expect(view.all(of: Exhibit.self).isEmpty)
            let title: String? = view.get(Path(model: Exhibit.modelId, instance: 1, property: 1))
            #expect(title == nil)
            #expect(view.records(after: nil).isEmpty)
            #expect(!view.isBeforeHistoryStart)
        }
    }

    @Test("Late records with old timestamps (as from a sync) appear in views of their time", arguments: HistoryDatabaseKind.allCases)
    func lateRecordsAppearInViews(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let path = Path(model: Lantern.modelId, instance: 1, property: 1)
        database.set(InstanceStatus.created, for: Path.status(model: Lantern.modelId, instance: 1), timestamp: Timestamp(time: 100))
        database.set(10, for: path, timestamp: Timestamp(time: 100))
        database.set(30, for: path, timestamp: Timestamp(time: 300))
        let view = database.view(at: Timestamp(time: 250))
        #expect(view.get(id: 1, of: Lantern.self)?.brightness == 10)

        database.set(20, for: path, timestamp: Timestamp(time: 200))
        #expect(view.get(id: 1, of: Lantern.self)?.brightness == 20)
        #expect(database.get(id: 1, of: Lantern.self)?.brightness == 30)
    }

    // MARK: Instances

    @Test("An instance created after the view's moment is absent", arguments: HistoryDatabaseKind.allCases)
    func laterInstanceAbsent(kind: HistoryDatabaseKind) {
        let database = kind.make()
        Exhibit.create(in: database, id: 1, title: "Early")
        let moment = momentBetweenWrites()
        Exhibit.create(in: database, id: 2, title: "Late")

        let view = database.view(at: moment)
        #expect(view.get(id: 2, of: Exhibit.self) == nil)
        #expect(view.active(id: 2, of: Exhibit.self) == nil)
        #expect(Exhibit(database: view, id: 2).status == .notCreated)
        #expect(ids(view.all(of: Exhibit.self)) == [1])
        #expect(ids(database.all(of: Exhibit.self)) == [1, 2])
        let instances = view.all(model: Exhibit.modelId) { instance, _ in instance }
        #expect(instances == [1])
    }

    @Test("A deleted instance shows the status it had at each moment", arguments: HistoryDatabaseKind.allCases)
    func deletedInstanceStatus(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let kept = Exhibit.create(in: database, id: 1, title: "Kept")
        let removed = Exhibit.create(in: database, id: 2, title: "Removed")
        let beforeDelete = momentBetweenWrites()
        removed.delete()
        let whileDeleted = momentBetweenWrites()
        removed.insert()

        let before = database.view(at: beforeDelete)
        #expect(before.active(id: 2, of: Exhibit.self)?.title == "Removed")
        #expect(ids(before.all(of: Exhibit.self)) == [1, 2])

        let during = database.view(at: whileDeleted)
        let deleted = during.get(id: 2, of: Exhibit.self)
        #expect(deleted != nil)
        #expect(deleted?.status == .deleted)
        #expect(deleted?.title == "Removed")
        #expect(during.active(id: 2, of: Exhibit.self) == nil)
        #expect(ids(during.all(of: Exhibit.self)) == [1])
        let statuses = Dictionary(uniqueKeysWithValues: during.all(model: Exhibit.modelId) { ($0, $1) })
        #expect(statuses == [1: .created, 2: .deleted])

        #expect(removed.status == .created)
        #expect(kept.status == .created)
        #expect(ids(database.all(of: Exhibit.self)) == [1, 2])
    }

    @Test("all(of:) with a filter runs on the values of the view's moment", arguments: HistoryDatabaseKind.allCases)
    func filteredAllInView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        for id in 1 ... 6 {
            Exhibit.create(in: database, id: id, visitors: id * 10)
        }
        let moment = momentBetweenWrites()
        for exhibit in database.all(of: Exhibit.self) {
            exhibit.visitors = 0
        }
        let view = database.view(at: moment)
        #expect(ids(view.all(Exhibit.self) { $0.visitors >= 40 }) == [4, 5, 6])
        #expect(database.all(Exhibit.self) { $0.visitors >= 40 }.isEmpty)
    }

    // MARK: Writes

    @Test("Writes to a view are ignored and counted", arguments: HistoryDatabaseKind.allCases)
    func writesIgnored(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "Original", visitors: 5)
        let view = database.view(at: momentBetweenWrites())
        let recordCount = database.records(after: nil).count
        #expect(view.ignoredWriteCount == 0)

        let old = view.get(id: 1, of: Exhibit.self)!
        old.title = "Changed"
        #expect(view.ignoredWriteCount == 1)
        old.visitors += 1
        #expect(view.ignoredWriteCount == 2)
        view.create(id: 2, of: Exhibit.self)
        #expect(view.ignoredWriteCount == 3)
        old.delete()
        #expect(view.ignoredWriteCount == 4)
        view.set("Direct", for: exhibit.path(of: .title), timestamp: database.clock.now())
        #expect(view.ignoredWriteCount == 5)

        #expect(old.title == "Original")
        #expect(old.visitors == 5)
        #expect(old.status == .created)
        #expect(view.get(id: 2, of: Exhibit.self) == nil)
        #expect(exhibit.title == "Original")
        #expect(exhibit.visitors == 5)
        #expect(database.get(id: 2, of: Exhibit.self) == nil)
        #expect(database.records(after: nil).count == recordCount)
    }

    @Test("Each view counts its own ignored writes")
    func ignoredWritesPerView() {
        let database = InMemoryHistoryDatabase()
        let first = database.view(at: Date())
        let second = database.view(at: Date())
        first.set(1, for: Path(model: Lantern.modelId, instance: 1, property: 1))
        #expect(first.ignoredWriteCount == 1)
        #expect(second.ignoredWriteCount == 0)
    }

    // MARK: Moving

    @Test("moveView(to:) moves the view; models fetched before read the new moment", arguments: HistoryDatabaseKind.allCases)
    func moveView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "A")
        let first = momentBetweenWrites()
        exhibit.title = "B"
        Exhibit.create(in: database, id: 2, title: "Second")
        let second = momentBetweenWrites()
        exhibit.title = "C"

        let view = database.view(at: first)
        let old = view.get(id: 1, of: Exhibit.self)!
        #expect(old.title == "A")
        #expect(view.get(id: 2, of: Exhibit.self) == nil)

        view.moveView(to: second)
        #expect(view.timestamp == Timestamp(latestAt: second))
        #expect(old.title == "B")
        #expect(view.get(id: 2, of: Exhibit.self)?.title == "Second")

        view.moveView(to: database.clock.now())
        #expect(old.title == "C")

        view.moveView(to: first)
        #expect(old.title == "A")
        #expect(view.all(of: Exhibit.self).count == 1)

        view.moveView(to: Date.distantPast)
        #expect(old.status == .notCreated)
        #expect(view.all(of: Exhibit.self).isEmpty)
    }

    // MARK: A view is a history database

    @Test("A view's history ends at its moment", arguments: HistoryDatabaseKind.allCases)
    func viewHistoryEndsAtMoment(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "A")
        exhibit.title = "B"
        let moment = database.clock.now()
        exhibit.title = "C"
        let titlePath = exhibit.path(of: .title)

        let view = database.view(at: moment)
        #expect(view.records(at: titlePath).compactMap { $0.value as? String } == ["A", "B"])
        #expect(view.history(of: titlePath, as: String.self).map(\.value) == ["A", "B"])
        #expect(view.latestRecord(at: titlePath)?.value as? String == "B")
        #expect(view.records(after: nil).allSatisfy { $0.timestamp <= moment })
        #expect(view.records(after: nil).count == database.records(after: nil).count - 1)
        #expect(view.records(after: nil, limit: 1).count == 1)
        #expect(view.clock === database.clock)

        // Asking a view for a later moment gives its own moment at most.
        let later: Timestamped<String>? = view.get(titlePath, at: Timestamp.max)
        #expect(later?.value == "B")
        let allLater = view.all(model: Exhibit.modelId, at: Timestamp.max) { instance, _ in instance }
        #expect(allLater == [1])
        // An earlier moment is answered exactly.
        let first = database.records(at: titlePath)[0].timestamp
        let earlier: Timestamped<String>? = view.get(titlePath, at: first)
        #expect(earlier?.value == "A")
    }

    @Test("A view of a view shows the earlier of both moments", arguments: HistoryDatabaseKind.allCases)
    func viewOfView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let exhibit = Exhibit.create(in: database, id: 1, title: "A")
        let first = database.clock.now()
        exhibit.title = "B"
        let second = database.clock.now()
        exhibit.title = "C"

        let outer = database.view(at: second)
        #expect(outer.view(at: first).get(id: 1, of: Exhibit.self)?.title == "A")
        #expect(outer.view(at: Timestamp.max).get(id: 1, of: Exhibit.self)?.title == "B")
    }

    @Test("A view can be read from many threads while it moves")
    func concurrentReads() async {
        let database = InMemoryHistoryDatabase()
        let exhibit = Exhibit.create(in: database, id: 1, visitors: 0)
        var moments: [Timestamp] = []
        for count in 1 ... 50 {
            exhibit.visitors = count
            moments.append(database.clock.now())
        }
        let view = database.view(at: moments[0])
        let snapshot = moments
        let invalid = Locked(0)
        let finished = await TestThread.run(count: 8) { index in
            for step in 0 ..< 200 {
                if index == 0 { view.moveView(to: snapshot[step % snapshot.count]) }
                let visitors = view.get(id: 1, of: Exhibit.self)?.visitors ?? -1
                if !(1 ... 50).contains(visitors) { invalid.withLock { $0 += 1 } }
            }
        }
        #expect(finished)
        #expect(invalid.current == 0)
    }

    // MARK: Documented samples

    @Test("Documented sample: a view of yesterday, queried like any database", arguments: HistoryDatabaseKind.allCases)
    func documentedHistoryView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let twoDaysAgo = Timestamp(latestAt: Date().addingTimeInterval(-2 * 86400))
        // An instance that existed two days ago, then changed today.
        database.set(InstanceStatus.created, for: Path.status(model: Lantern.modelId, instance: 1), timestamp: twoDaysAgo)
        database.set(3, for: Path(model: Lantern.modelId, instance: 1, property: 1), timestamp: twoDaysAgo)
        database.get(id: 1, of: Lantern.self)?.brightness = 9
        let _: Lantern = database.create(id: 2)

        let yesterday = Date().addingTimeInterval(-86400)
        let view = database.view(at: yesterday)

        // The same model definition and code work with the database and the view.
        func totalBrightness(in database: any Database) -> Int {
            database.all(of: Lantern.self).reduce(0) { $0 + $1.brightness }
        }
        #expect(totalBrightness(in: view) == 3)
        #expect(totalBrightness(in: database) == 9)
        #expect(view.all(of: Lantern.self).map(\.id) == [1])

        // Edits to a history view are ignored.
        view.get(id: 1, of: Lantern.self)?.brightness = 100
        #expect(view.get(id: 1, of: Lantern.self)?.brightness == 3)
        #expect(database.get(id: 1, of: Lantern.self)?.brightness == 9)
        #expect(view.ignoredWriteCount == 1)
    }
}
