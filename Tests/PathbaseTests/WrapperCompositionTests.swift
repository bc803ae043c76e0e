import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// Model ids 2200–2209.

@Model(id: 2200)
final class ComposedItem {
    @Property(id: 1)
    var rank: Int

    @Property(id: 2)
    var name: String

    @Reference(id: 3)
    var owner: ComposedItem?

    @ReferenceList(id: 4)
    var members: [ComposedItem]
}

@Model(id: 2201)
final class ComposedItemTwin {
    @Property(id: 1)
    var title: String
}

/// Same model id as ``ComposedItem``: must be refused through every wrapper.
@Model(id: 2200)
final class ComposedItemImpostor {
    @Property(id: 1)
    var rank: String
}

private struct CompositionFailure: Error {}

/// Wrappers compose in any order and keep what their base can do: queries in SQL, batches in
/// one transaction, history.
@Suite("Wrapper composition: every wrapper over every backend, alone and in pairs")
struct WrapperCompositionTests {

    private static let sqliteKinds = DatabaseKind.allCases.filter(\.isSQLite)

    /// The compositions that keep their backend's capabilities: the non-generic
    /// ObservableDatabase is only outermost (a generic wrapper around it sees a plain
    /// ``Database``; ``ObservedDatabase`` is the one to use inside).
    private static func keepsCapabilities(_ kind: DatabaseKind) -> Bool {
        !kind.wrappers.dropLast().contains(.observable)
    }

    /// Twenty items with ranks 0–4, each owned by item 1 and listing item 2.
    private func fill(_ database: any Database) {
        let first = ComposedItem.create(in: database, id: 1, rank: 1, name: "n01")
        let second = ComposedItem.create(in: database, id: 2, rank: 2, name: "n02")
        for id in 3 ... 20 {
            ComposedItem.create(in: database, id: id, rank: id % 5, name: String(format: "n%02d", 41 - id), owner: first, members: [second])
        }
    }

    @Test("A key-path query runs in SQL through the wrappers and returns what evaluation on models returns", arguments: sqliteKinds)
    func queryPushdown(kind: DatabaseKind) throws {
        let (database, backend) = kind.makeWithBackend()
        let sqlite = try #require(backend as? SQLiteDatabase)
        fill(database)
        let query = QueryDescriptor<ComposedItem>(where: \.rank >= 3 && .hasPrefix(\.name, "n"), sortBy: \.name, limit: 5)

        let before = sqlite.queriesAnsweredInSQL
        let results = database.fetch(query).map(\.id)
        #expect(sqlite.queriesAnsweredInSQL == before + 1, "the query was evaluated on models, not in SQL")

        let expected = database.all(of: ComposedItem.self)
            .filter { $0.rank >= 3 && $0.name.hasPrefix("n") }
            .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
            .prefix(5).map(\.id)
        #expect(results == Array(expected))
        #expect(results.count == 5)
    }

    @Test("Inverse relationships are looked up in SQL through the wrappers", arguments: sqliteKinds)
    func inverseLookup(kind: DatabaseKind) throws {
        let (database, backend) = kind.makeWithBackend()
        let sqlite = try #require(backend as? SQLiteDatabase)
        fill(database)
        let first = try #require(database.active(id: 1) as ComposedItem?)
        let second = try #require(database.active(id: 2) as ComposedItem?)

        let before = sqlite.queriesAnsweredInSQL
        let owned = first.referrers(through: \ComposedItem.owner).map(\.id)
        let listing = second.referrers(through: \ComposedItem.members).map(\.id)
        #expect(sqlite.queriesAnsweredInSQL == before + 2, "inverse lookups were evaluated on models, not in SQL")
        #expect(owned == Array(3 ... 20))
        #expect(listing == Array(3 ... 20))
    }

    @Test("A history view of any composition evaluates queries on its models: SQL sees only the present", arguments: sqliteKinds.filter { $0.wrappers.allSatisfy { $0 != .observable } })
    func viewsDoNotPushDown(kind: DatabaseKind) throws {
        let (database, _) = kind.makeWithBackend()
        let history = try #require(database as? any HistoryDatabase, "a typed wrapper over SQLite lost its history")
        fill(database)
        let then = history.clock.now()
        for item in database.all(of: ComposedItem.self) { item.rank = 0 }
        let view = history.view(at: then)
        let ranked = view.fetch(QueryDescriptor<ComposedItem>(where: \.rank >= 3)).map(\.id)
        #expect(ranked == [3, 4, 8, 9, 13, 14, 18, 19])
        #expect(database.fetch(QueryDescriptor<ComposedItem>(where: \.rank >= 3)).isEmpty)
    }

    @Test("Typed wrappers over SQLite keep batches, history and pruning by type, in any order", arguments: sqliteKinds.filter { $0.wrappers.allSatisfy { $0 != .observable } })
    func typedCapabilities(kind: DatabaseKind) {
        let database = kind.make()
        #expect(database is any BatchDatabase)
        #expect(database is any HistoryDatabase)
        #expect(database is any PrunableHistoryDatabase)
    }

    /// Over an in-memory backend: an undoable database reached only through generic
    /// wrappers gives batches by type.
    private static func hasBatchesByType(_ kind: DatabaseKind) -> Bool {
        for wrapper in kind.wrappers.reversed() {
            switch wrapper {
            case .undoable: return true
            case .observable: return false
            case .cached, .observed: continue
            }
        }
        return false
    }

    @Test("Generic wrappers around the non-generic ObservableDatabase see a plain database: no history, no batches by type", arguments: sqliteKinds.filter { !keepsCapabilities($0) })
    func erasedInside(kind: DatabaseKind) {
        let database = kind.make()
        #expect(!(database is any HistoryDatabase))
        #expect((database is any BatchDatabase) == Self.hasBatchesByType(kind))
    }

    @Test("Wrappers over a database without history or batches do not claim them", arguments: DatabaseKind.allCases.filter { $0.backend == .inMemory })
    func noPretending(kind: DatabaseKind) {
        let database = kind.make()
        #expect(!(database is any HistoryDatabase))
        // An undoable database takes back a failing batch itself, whatever its base; the
        // ObservableDatabase has batches only at run time, when its base has them.
        #expect((database is any BatchDatabase) == Self.hasBatchesByType(kind))
        if let observable = database as? ObservableDatabase {
            #expect(!observable.keepsHistory)
            if kind.wrappers.contains(.undoable) {
                #expect(throws: Never.self) { try observable.batch {} }
            } else {
                #expect(throws: DatabaseCapabilityError.batchesUnavailable) { try observable.batch {} }
            }
        }
    }

    @Test("A failing batch through any composition over SQLite stores nothing", arguments: sqliteKinds.filter(keepsCapabilities))
    func batchRollsBack(kind: DatabaseKind) throws {
        let database = kind.make()
        fill(database)
        let item = try #require(database.active(id: 3) as ComposedItem?)
        let run: (() throws -> Void) throws -> Void
        if let batches = database as? any BatchDatabase {
            run = { try batches.batch($0) }
        } else {
            // The non-generic ObservableDatabase finds its base's batches when asked.
            let observable = try #require(database as? ObservableDatabase, "\(kind) lost its batches")
            run = { try observable.batch($0) }
        }
        #expect(throws: CompositionFailure.self) {
            try run {
                item.rank = 99
                item.name = "changed"
                throw CompositionFailure()
            }
        }
        let fresh = try #require(database.active(id: 3) as ComposedItem?)
        #expect(fresh.rank == 3)
        #expect(fresh.name == "n38")
    }

    @Test(
        "Synchronization reads history through every composition over a history database",
        arguments: DatabaseKind.allCases.filter { ($0.backend == .inMemoryHistory || $0.backend == .sqliteMemory) && keepsCapabilities($0) })
    func syncThroughWrappers(kind: DatabaseKind) throws {
        let database = kind.make()
        let remote = InMemoryHistoryDatabase()
        ComposedItem.create(in: remote, id: 7, rank: 4, name: "remote")
        let map: (Int) -> (any ModelProtocol.Type)? = { $0 == ComposedItem.modelId ? ComposedItem.self : nil }
        let consumer = UpdateConsumer(database: database, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
        let producer = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: map)
        let request = try consumer.modelUpdateRequest(for: ComposedItem.self, after: nil as SyncCursor?, limit: 100, startingAt: nil)
        _ = try consumer.apply(modelUpdate: producer.process(request: request))
        let item = try #require(database.active(id: 7) as ComposedItem?)
        #expect(item.name == "remote")
        #expect(item.rank == 4)
    }
}

/// Two model types with one model id would read and overwrite each other's data: the first
/// use of the second type stops the program, through every wrapper as on the database.
@Suite("Model id conflicts are caught through every wrapper")
struct WrapperModelIdConflictTests {

    @Test("Through an UndoableDatabase")
    func undoable() async {
        await #expect(processExitsWith: .failure) {
            let database = InMemoryHistoryDatabase()
            _ = ComposedItem.create(in: database, id: 1, rank: 1, name: "a")
            let _: ComposedItemImpostor? = UndoableDatabase(wrapping: database).get(id: 1)
        }
    }

    @Test("Through a HistoryView")
    func historyView() async {
        await #expect(processExitsWith: .failure) {
            let database = InMemoryHistoryDatabase()
            _ = ComposedItem.create(in: database, id: 1, rank: 1, name: "a")
            let _: ComposedItemImpostor? = database.view(at: database.clock.now()).get(id: 1)
        }
    }

    @Test("Through an EditingContext")
    func editingContext() async {
        await #expect(processExitsWith: .failure) {
            let database = InMemoryDatabase()
            _ = ComposedItem.create(in: database, id: 1, rank: 1, name: "a")
            let _: ComposedItemImpostor = database.createEditingContext().create(id: 2)
        }
    }

    @Test("Through an ObservableDatabase over a CachedDatabase")
    func observableOverCached() async {
        await #expect(processExitsWith: .failure) {
            let database = InMemoryDatabase()
            _ = ComposedItem.create(in: database, id: 1, rank: 1, name: "a")
            let wrapped = ObservableDatabase(wrapping: CachedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: 4)))
            _ = wrapped.all(of: ComposedItemImpostor.self)
        }
    }

    @Test("Wrappers share their base's registry: one type through several wrappers is fine")
    func sameTypeIsFine() {
        let database = InMemoryHistoryDatabase()
        _ = ComposedItem.create(in: database, id: 1, rank: 1, name: "a")
        let undoable = UndoableDatabase(wrapping: ObservedDatabase(wrapping: database))
        let context = undoable.createEditingContext()
        let fromContext: ComposedItem? = context.get(id: 1)
        let fromView: ComposedItem? = undoable.view(at: undoable.clock.now()).get(id: 1)
        #expect(fromContext?.name == "a")
        #expect(fromView?.name == "a")
    }
}
