import Foundation
import Observation
import Pathbase
import PathbaseSQLite
import Testing
#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

// Model ids 2120–2139.

@Model(id: 2120)
private final class ObservedTask {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var isCompleted: Bool

    @Property(id: 3)
    var sortIndex: Int
}

/// What a SwiftUI view holds in the seed's shape: `@EnvironmentObject private var database:
/// ObservableDatabase` and the live query behind `@Query var items: [ObservedTask]`, without
/// naming what the database wraps.
private final class ObservedTaskScreen {
    let database: ObservableDatabase
    private(set) var items: LiveQuery<ObservedTask>

    init(database: ObservableDatabase, descriptor: QueryDescriptor<ObservedTask> = QueryDescriptor()) {
        self.database = database
        self.items = LiveQuery(descriptor, in: database)
    }
}

/// Accepts what `@EnvironmentObject` and `.environmentObject(_:)` accept.
private func environmentObject<Object: ObservableObject>(_ object: Object) -> Object { object }

private struct Interrupted: Error {}

@Suite("ObservableDatabase: one type over any database")
struct ObservableDatabaseTests {

    @Test("A stored property typed ObservableDatabase holds observable databases over any database, and works")
    func storedProperty() {
        let databases: [ObservableDatabase] = [
            ObservableDatabase(wrapping: InMemoryDatabase()),
            ObservableDatabase(wrapping: InMemoryHistoryDatabase()),
            ObservableDatabase(wrapping: SQLiteTestFiles.makeDatabase(path: nil)),
            ObservableDatabase(wrapping: CachedDatabase(wrapping: InMemoryDatabase(), cache: MaximumCountCache(maxCount: 4)))
        ]
        for database in databases {
            let screen = ObservedTaskScreen(database: environmentObject(database))
            #expect(screen.items.isLive)
            let task = ObservedTask.create(in: screen.database, id: 1, name: "lamp")
            let changed = observeChanges { _ = task.name }
            ObservedTask(database: database, id: 1).name = "torch"
            #expect(changed.value == 1)
            #expect(screen.items.results.map(\.name) == ["torch"])
        }
    }

    @Test("The database is an ObservableObject whose publisher never fires: its models notify")
    func observableObject() {
        let database = environmentObject(ObservableDatabase(wrapping: SQLiteTestFiles.makeDatabase(path: nil)))
        let fired = ObservedFireCount()
        let subscription = database.objectWillChange.sink { fired.fire() }
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        let willChange = ObservedWillChangeCount(task)
        task.name = "torch"
        try? database.batch { task.sortIndex = 2 }
        #expect(willChange.value == 2)
        #expect(fired.value == 0)
        subscription.cancel()
    }

    @Test("keepsHistory tells whether the wrapped database keeps history, through wrappers")
    func keepsHistory() {
        let plain = ObservableDatabase(wrapping: InMemoryDatabase())
        let history = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        #expect(!plain.keepsHistory)
        #expect(history.keepsHistory)
        #expect(!ObservableDatabase(wrapping: plain).keepsHistory)
        #expect(ObservableDatabase(wrapping: history).keepsHistory)
        #expect(ObservableDatabase(wrapping: SQLiteTestFiles.makeDatabase(path: nil)).keepsHistory)
        #expect(ObservableDatabase(wrapping: UndoableDatabase(wrapping: ObservedDatabase(wrapping: InMemoryHistoryDatabase()))).keepsHistory)
        // Other wrappers see an ObservableDatabase as a plain database: use ObservedDatabase inside them.
        #expect(!ObservableDatabase(wrapping: UndoableDatabase(wrapping: history)).keepsHistory)
        #expect(!ObservableDatabase(wrapping: UndoableDatabase(wrapping: plain)).keepsHistory)
        let cachedPlain = CachedDatabase(wrapping: plain, cache: MaximumCountCache(maxCount: 4))
        #expect(!ObservableDatabase(wrapping: cachedPlain).keepsHistory)
        #expect(!(cachedPlain as Any is any HistoryDatabase))
        let cachedHistory = CachedDatabase(wrapping: InMemoryHistoryDatabase(), cache: MaximumCountCache(maxCount: 4))
        #expect(ObservableDatabase(wrapping: cachedHistory).keepsHistory)
    }

    // MARK: Over a database without history

    @Test("Over a plain database: no history by type or at run time; importing keeps the newest values")
    func noHistory() throws {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        #expect(!(database as Any is any HistoryDatabase))
        #expect(!database.keepsHistory)
        #expect(task.history(of: .name, as: String.self).isEmpty)
        #expect(task.history().isEmpty)

        let source = InMemoryHistoryDatabase()
        let imported = ObservedTask.create(in: source, id: 2, name: "first")
        imported.name = "second"
        let changed = observeChanges { _ = ObservedTask(database: database, id: 2).name }
        try database.importRecords(from: try source.exportRecords())
        #expect(ObservedTask(database: database, id: 2).name == "second")
        #expect(changed.value >= 1)
    }

    @Test("The typed ObservedDatabase has its base's history by type, and shares observers with the ObservableDatabase made from it")
    func typedHistory() {
        let observed = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        let database = ObservableDatabase(observed)
        #expect(database.instanceObservers === observed.instanceObservers)
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        let before = observed.clock.now()
        let changed = observeChanges { _ = task.name }
        observed.apply(Record(path: task.path(of: .name), timestamp: observed.clock.now(), value: "torch"))
        #expect(changed.value == 1)
        #expect(task.name == "torch")
        let past = observed.view(at: before)
        #expect(ObservedTask(database: past, id: 1).name == "lamp")
        #expect(observed.records(at: task.path(of: .name)).count == 2)
    }

    @Test("Over a plain database: a batch refuses to run, with a typed error, and writes nothing")
    func batchWithoutBatches() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        #expect(throws: DatabaseCapabilityError.batchesUnavailable) {
            try database.batch {
                task.name = "torch"
            }
        }
        #expect(task.name == "lamp")
    }

    @Test("Over a database with batches: a failing batch keeps nothing")
    func batchWithBatches() {
        let database = ObservableDatabase(wrapping: SQLiteTestFiles.makeDatabase(path: nil))
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        #expect(throws: Interrupted.self) {
            try database.batch {
                task.name = "torch"
                throw Interrupted()
            }
        }
        #expect(task.name == "lamp")
    }

    @Test("Over a plain database: undo restores the value read before each change, also after a failed batch")
    func undoWithoutHistory() {
        let database = UndoableDatabase(wrapping: ObservableDatabase(wrapping: InMemoryDatabase()))
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        let changed = observeChanges { _ = task.name }
        task.name = "torch"
        #expect(database.undo())
        #expect(task.name == "lamp")
        #expect(changed.value == 1)
        #expect(database.redo())
        #expect(task.name == "torch")
        #expect(throws: Interrupted.self) {
            try database.batch {
                task.name = "candle"
                throw Interrupted()
            }
        }
        #expect(task.name == "torch")
    }

    @Test("Over a plain database: editing contexts commit, and detect no conflicts (no timestamps)")
    func contextWithoutHistory() throws {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        let context = database.createEditingContext()
        ObservedTask(database: context, id: 1).name = "context"
        task.name = "meanwhile"
        try context.commitChanges(onConflict: .fail)
        #expect(task.name == "context")
    }

    @Test("Over a history database: editing contexts detect conflicts")
    func contextWithHistory() {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let task = ObservedTask.create(in: database, id: 1, name: "lamp")
        let context = database.createEditingContext()
        ObservedTask(database: context, id: 1).name = "context"
        task.name = "meanwhile"
        #expect(throws: EditingContextError.conflicts([task.path(of: .name)])) {
            try context.commitChanges(onConflict: .fail)
        }
        #expect(task.name == "meanwhile")
    }

    // MARK: Synchronization

    @Test("Sync refuses an observable database over a plain one, and wrappers of it; nothing is stored")
    func syncNeedsHistory() throws {
        let plain = InMemoryDatabase()
        let observed = ObservableDatabase(wrapping: plain)
        let wrappers: [any Database] = [
            observed,
            ObservableDatabase(wrapping: observed),
            CachedDatabase(wrapping: observed, cache: MaximumCountCache(maxCount: 4)),
            UndoableDatabase(wrapping: observed)
        ]
        let history = SyncPair()
        _ = SyncItem.create(in: history.producerDatabase, id: 1, title: "x")
        for database in wrappers {
            let consumer = UpdateConsumer(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
            let response = history.producer.process(request: try consumer.modelUpdateRequest(for: SyncItem.self, limit: 10))
            #expect(throws: SyncError.historyRequired(database: String(describing: type(of: database)))) {
                try consumer.apply(data: response)
            }
            #expect(plain.count == 0)

            let producer = RequestProcessor(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
            let error = remoteError(producer.process(request: try history.consumer.instanceStatusRequest(for: SyncItem.self)), consumer: history.consumer)
            #expect(error == .historyRequired(database: String(describing: type(of: database))))
        }
    }

    @Test("Sync through an observable history database stores the records and notifies")
    func syncWithHistory() throws {
        let pair = SyncPair(consumer: ObservedDatabase(wrapping: InMemoryHistoryDatabase()))
        let local = SyncItem.create(in: pair.consumerDatabase, id: 1, title: "local")
        let changed = observeChanges { _ = local.title }
        pair.producerDatabase.clock.receive(pair.consumerDatabase.clock.now())
        _ = SyncItem.create(in: pair.producerDatabase, id: 1, title: "remote")
        try pair.pullModel(SyncItem.self)
        #expect(local.title == "remote")
        #expect(changed.value == 1)
    }
}

@Suite("SwiftUI building blocks on any platform")
struct QueryBuildingBlockTests {

    private func fill(_ database: ObservableDatabase) {
        for (id, name) in ["walk", "shop", "cook", "read"].enumerated() {
            ObservedTask.create(in: database, id: id, name: name, isCompleted: id % 2 == 1, sortIndex: 10 - id)
        }
    }

    @Test("The seed's query shapes over an ObservableDatabase: all, filtered and sorted, from a descriptor")
    func seedShapes() {
        let database = ObservableDatabase(wrapping: InMemoryDatabase())
        fill(database)
        let all = LiveQuery(QueryDescriptor<ObservedTask>(), in: database)
        let done = LiveQuery(QueryDescriptor<ObservedTask>(filter: { $0.isCompleted }, sortBy: { $0.name }), in: database)
        let descriptor = QueryDescriptor<ObservedTask>(filter: { !$0.isCompleted }, sortBy: { $0.sortIndex })
        let open = LiveQuery(descriptor, in: database)
        #expect(Set(all.results.map(\.name)) == ["walk", "shop", "cook", "read"])
        #expect(done.results.map(\.name) == ["read", "shop"])
        #expect(open.results.map(\.name) == ["cook", "walk"])
        #expect(open.query.id == descriptor.id)

        let tracked = observeChanges { _ = open.results }
        ObservedTask(database: database, id: 0).isCompleted = true
        #expect(tracked.value == 1)
        #expect(open.results.map(\.name) == ["cook"])
        #expect(done.results.map(\.name) == ["read", "shop", "walk"])
    }

    @Test("A query kept by a view is made again only for another database or descriptor id")
    @MainActor
    func updateKeepsOrRemakes() throws {
        // LiveQueryHolder is what SwiftUI's `Query.update()` calls before each body.
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        fill(database)
        let descriptor = QueryDescriptor<ObservedTask>(filter: { !$0.isCompleted })
        let holder = LiveQueryHolder<ObservedTask>()
        #expect(holder.live == nil)
        holder.update(descriptor, isFixed: false, in: database)
        let first = try #require(holder.live)
        holder.update(descriptor, isFixed: false, in: database)
        #expect(holder.live === first)

        let sorted = QueryDescriptor<ObservedTask>(filter: { !$0.isCompleted }, sortBy: { $0.name }, reverse: true)
        holder.update(sorted, isFixed: false, in: database)
        #expect(holder.live !== first)
        #expect(holder.live?.results.map(\.name) == ["walk", "cook"])

        let other = ObservableDatabase(wrapping: InMemoryDatabase())
        holder.update(sorted, isFixed: false, in: other)
        #expect(holder.live?.results.isEmpty == true)
        ObservedTask.create(in: other, id: 9, name: "new")
        #expect(holder.live?.results.map(\.name) == ["new"])
    }

    @Test("A fixed query (`@Query var items`) keeps its live query for a new descriptor id, not for another database")
    @MainActor
    func fixedQueryKeepsAcrossDescriptors() throws {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        fill(database)
        let holder = LiveQueryHolder<ObservedTask>()
        holder.update(QueryDescriptor(), isFixed: true, in: database)
        let first = try #require(holder.live)
        // `Query()` makes a new descriptor, with a new id, each time the view is made anew.
        holder.update(QueryDescriptor(), isFixed: true, in: database)
        #expect(holder.live === first)
        holder.update(QueryDescriptor(), isFixed: true, in: ObservableDatabase(wrapping: InMemoryDatabase()))
        #expect(holder.live !== first)
        #expect(holder.live?.results.isEmpty == true)
    }
}
