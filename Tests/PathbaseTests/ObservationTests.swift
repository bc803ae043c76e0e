import Foundation
import Observation
import Pathbase
import PathbaseTestSupport
import PathbaseSQLite
import Testing
#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

// Model ids 1900–1999.

@Model(id: 1900)
final class Dial {
    @Property(id: 1)
    var label: String

    @Property(id: 2)
    var level: Int

    @Reference(id: 3)
    var next: Dial?

    @ReferenceList(id: 4)
    var parts: [Dial]
}

/// Counts calls from any thread.
final class ObservedFireCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func fire() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// Tracks what `read` reads with `withObservationTracking`; the count grows when it changes.
func observeChanges(_ read: () -> Void) -> ObservedFireCount {
    let count = ObservedFireCount()
    withObservationTracking(read, onChange: { count.fire() })
    return count
}

/// Counts the `objectWillChange` notifications of a model.
final class ObservedWillChangeCount {
    let count = ObservedFireCount()
    private var subscription: AnyCancellable?

    init(_ model: some ModelProtocol) {
        subscription = model.objectWillChange.sink { [count] _ in count.fire() }
    }

    var value: Int { count.value }
}

/// A change source: something that changes `label` of instance 1 of a database, given the
/// database models are fetched from.
struct ObservedChangeSource: CustomStringConvertible, Sendable {
    let description: String
    /// Makes the database to fetch models from, and returns the change to make to gauge 1.
    let make: @Sendable () -> (database: any Database, change: () -> Void)

    static let all: [ObservedChangeSource] = [
        ObservedChangeSource(description: "direct set") {
            let database = ObservableDatabase(wrapping: InMemoryDatabase())
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (database, { gauge.label = "B" })
        },
        ObservedChangeSource(description: "another handle") {
            let database = ObservableDatabase(wrapping: InMemoryDatabase())
            _ = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (database, { Dial(database: database, id: 1).label = "B" })
        },
        ObservedChangeSource(description: "committed editing context") {
            let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
            _ = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (
                database,
                {
                    let context = database.createEditingContext()
                    Dial(database: context, id: 1).label = "B"
                    context.commitChanges()
                }
            )
        },
        ObservedChangeSource(description: "undo") {
            let database = UndoableDatabase(wrapping: ObservableDatabase(wrapping: InMemoryHistoryDatabase()))
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            gauge.label = "B"
            return (database, { database.undo() })
        },
        ObservedChangeSource(description: "timestamped set") {
            let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (database, { database.set("B", for: gauge.path(of: .label), timestamp: database.clock.now()) })
        },
        ObservedChangeSource(description: "applied record (sync)") {
            let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
            _ = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            let remote = InMemoryHistoryDatabase()
            remote.clock.receive(database.clock.now())
            remote.set("B", for: Dial(database: remote, id: 1).path(of: .label))
            let records = remote.records()
            return (database, { for record in records { database.apply(record) } })
        },
        ObservedChangeSource(description: "import of a record archive") {
            let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
            _ = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            let remote = InMemoryHistoryDatabase()
            remote.clock.receive(Timestamp(latestAt: Date()))
            remote.set("B", for: Dial(database: remote, id: 1).path(of: .label))
            let archive = (try? remote.exportRecords()) ?? Data()
            return (database, { try? database.importRecords(from: archive) })
        },
        ObservedChangeSource(description: "sync response applied by an UpdateConsumer") {
            let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
            _ = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            let remote = InMemoryHistoryDatabase()
            remote.clock.receive(Timestamp(latestAt: Date()))
            Dial.create(in: remote, id: 1, label: "B")
            let modelMap: @Sendable (ModelKey) -> (any ModelProtocol.Type)? = { $0 == Dial.modelId ? Dial.self : nil }
            let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: modelMap)
            let consumer = UpdateConsumer(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: modelMap)
            return (
                database,
                {
                    guard let request = try? consumer.instanceUpdateRequest(for: 1, of: Dial.self) else { return }
                    _ = try? consumer.apply(data: producer.process(request: request))
                }
            )
        },
        ObservedChangeSource(description: "redo") {
            let database = UndoableDatabase(wrapping: ObservableDatabase(wrapping: InMemoryHistoryDatabase()))
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            gauge.label = "B"
            database.undo()
            return (database, { database.redo() })
        },
        ObservedChangeSource(description: "direct set on an observed SQLite database") {
            let database = ObservableDatabase(wrapping: SQLiteTestFiles.makeDatabase(path: nil))
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (database, { gauge.label = "B" })
        },
        ObservedChangeSource(description: "cached database over an observed one") {
            let database = CachedDatabase(wrapping: ObservableDatabase(wrapping: InMemoryDatabase()), cache: MaximumCountCache(maxCount: 100))
            let gauge = Dial.create(in: database, id: 1, label: "A")
            _ = Dial.create(in: database, id: 2, label: "other")
            return (database, { gauge.label = "B" })
        }
    ]
}

@Suite("Observation of models")
struct ObservationTests {

    @Test("withObservationTracking fires for the changed instance only", arguments: ObservedChangeSource.all)
    func observationFires(source: ObservedChangeSource) {
        let (database, change) = source.make()
        let gauge = Dial(database: database, id: 1)
        let other = Dial(database: database, id: 2)
        let before = gauge.label
        let changed = observeChanges { _ = gauge.label }
        let unchanged = observeChanges { _ = other.label }
        #expect(changed.value == 0)
        change()
        #expect(changed.value == 1)
        #expect(unchanged.value == 0)
        #expect(gauge.label != before)
    }

    @Test("objectWillChange fires for the changed instance only", arguments: ObservedChangeSource.all)
    func objectWillChangeFires(source: ObservedChangeSource) {
        let (database, change) = source.make()
        let changed = ObservedWillChangeCount(Dial(database: database, id: 1))
        let otherHandle = ObservedWillChangeCount(Dial(database: database, id: 1))
        let unchanged = ObservedWillChangeCount(Dial(database: database, id: 2))
        change()
        #expect(changed.value >= 1)
        #expect(otherHandle.value == changed.value)
        #expect(unchanged.value == 0)
    }

    @Test("Handles of one instance share their objectWillChange publisher")
    func sharedPublisher() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let first = Dial.create(in: database, id: 1, label: "A")
        #expect(first.objectWillChange == Dial(database: database, id: 1).objectWillChange)
        #expect(first.objectWillChange != Dial(database: database, id: 2).objectWillChange)
    }

    @Test("An instance's publisher is kept while it has subscribers and dropped after the last one ends")
    func publishersArePruned() throws {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let observers = try #require(database.instanceObservers)
        let first = Dial.create(in: database, id: 1, label: "A")
        var heard = 0
        let one = first.objectWillChange.sink { heard += 1 }
        let two = Dial(database: database, id: 1).objectWillChange.sink { heard += 1 }
        var others = (2 ... 100).map { Dial(database: database, id: $0).objectWillChange.sink {} }
        #expect(observers.subscribedInstanceCount == 100)
        first.label = "B"
        #expect(heard == 2)
        one.cancel()
        first.label = "C"
        #expect(heard == 3, "the remaining subscriber still hears")
        #expect(observers.subscribedInstanceCount == 100)
        two.cancel()
        others.removeAll() // releasing a subscription cancels it
        #expect(observers.subscribedInstanceCount == 0)
        first.label = "D"
        #expect(heard == 3)
        let again = first.objectWillChange.sink { heard += 1 }
        first.label = "E"
        #expect(heard == 4, "a new subscription after pruning hears again")
        again.cancel()
    }

    @Test("Edits in an editing context notify only when committed")
    func contextNotifiesOnCommit() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let gauge = Dial.create(in: database, id: 1, label: "A")
        let changed = observeChanges { _ = gauge.label }
        let willChange = ObservedWillChangeCount(gauge)
        let context = database.createEditingContext()
        Dial(database: context, id: 1).label = "B"
        #expect(changed.value == 0)
        #expect(willChange.value == 0)
        context.commitChanges()
        #expect(changed.value == 1)
        #expect(willChange.value == 1)
    }

    @Test("Tracking is per property; objectWillChange is per instance")
    func granularity() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let gauge = Dial.create(in: database, id: 1, label: "A")
        let labelReader = observeChanges { _ = gauge.label }
        let levelReader = observeChanges { _ = gauge.level }
        let willChange = ObservedWillChangeCount(gauge)
        gauge.level = 3
        #expect(labelReader.value == 0)
        #expect(levelReader.value == 1)
        #expect(willChange.value == 1)
    }

    @Test("References, reference lists and statuses are tracked")
    func referencesAndStatus() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let gauge = Dial.create(in: database, id: 1, label: "A")
        let target = Dial.create(in: database, id: 2, label: "B")
        let reference = observeChanges { _ = gauge.next }
        let list = observeChanges { _ = gauge.parts }
        let status = observeChanges { _ = gauge.status }
        gauge.next = target
        gauge.parts = [target]
        gauge.delete()
        #expect(reference.value == 1)
        #expect(list.value == 1)
        #expect(status.value == 1)
    }

    @Test("Models of a database that is not observed never notify")
    func unobserved() {
        let database = InMemoryDatabase()
        let gauge = Dial.create(in: database, id: 1, label: "A")
        #expect(database.instanceObservers == nil)
        let changed = observeChanges { _ = gauge.label }
        let willChange = ObservedWillChangeCount(gauge)
        gauge.label = "B"
        #expect(changed.value == 0)
        #expect(willChange.value == 0)
    }

    @Test("Writes from another thread notify")
    func otherThread() async {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let gauge = Dial.create(in: database, id: 1, label: "A")
        let changed = observeChanges { _ = gauge.label }
        await Task.detached {
            Dial(database: database, id: 1).label = "B"
        }.value
        #expect(changed.value == 1)
    }
}

@Suite("Change stream of an observable database")
struct ObservationChangeStreamTests {

    @Test("The change stream delivers written paths to a task, in order")
    func changeStream() async {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let stream = database.changes
        let reader = Task { await stream.first(3) }
        let gauge = Dial.create(in: database, id: 7, label: "A")
        gauge.level = 2
        let paths = await reader.value
        #expect(paths.count == 3)
        #expect(paths.first == gauge.path(of: .instanceId))
        #expect(paths.last == gauge.path(of: .level))
        #expect(Set(paths).contains(gauge.path(of: .label)))
    }

    @Test("The change stream reports commits, undo and applied records")
    func changeStreamSources() async {
        let observed = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        let database = UndoableDatabase(wrapping: observed)
        let gauge = Dial.create(in: database, id: 1, label: "A")
        let stream = observed.changes
        let reader = Task { await stream.first(3) }
        let context = database.createEditingContext()
        Dial(database: context, id: 1).level = 5
        context.commitChanges()
        database.undo()
        observed.apply(Record(path: gauge.path(of: .label), timestamp: observed.clock.now(), value: "C"))
        let paths = await reader.value
        #expect(paths == [gauge.path(of: .level), gauge.path(of: .level), gauge.path(of: .label)])
    }

    @Test("A stream that ends stops being fed")
    func streamEnds() async {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let stream = database.changes
        let reader = Task { await stream.first(1) }
        Dial.create(in: database, id: 1, label: "A").level = 1
        #expect(await reader.value.count == 1)
        // Writing after the reader is gone must not fail or block.
        Dial(database: database, id: 1).level = 2
        #expect(Dial(database: database, id: 1).level == 2)
    }
}

@Model(id: 1901)
private final class ObservedReadmePerson {
    @Property(id: 1)
    var name: String
}

@Suite("README: Observation")
struct ObservationReadmeTests {

    @Test("The README's observation example notifies both systems; the change stream reports the path")
    func readmeExample() async {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let alice = ObservedReadmePerson.create(in: database, id: 1, name: "Alice")
        let tracked = ObservedFireCount()
        withObservationTracking {
            _ = alice.name
        } onChange: {
            tracked.fire()
        }
        let willChange = ObservedFireCount()
        let subscription = alice.objectWillChange.sink { willChange.fire() }
        let stream = database.changes
        let reader = Task { await stream.first(1).first }
        ObservedReadmePerson(database: database, id: 1).name = "Alicia"
        #expect(tracked.value == 1)
        #expect(willChange.value == 1)
        #expect(await reader.value == alice.path(of: .name))
        subscription.cancel()
    }
}
