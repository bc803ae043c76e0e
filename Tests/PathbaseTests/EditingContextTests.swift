import Foundation
import Pathbase
import Testing

// Model ids 1320–1339.

@Model(id: 1320)
final class Manuscript {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var words: Int

    @Reference(id: 3)
    var sequel: Manuscript?

    @ReferenceList(id: 4)
    var chapters: [Manuscript]
}

@Model(id: 1321)
final class Parcel {
    @Property(id: 1)
    var value: Int
}

/// Any database a context can sit on: plain ones and history-keeping ones.
enum ContextDatabaseKind: Sendable, CustomStringConvertible {
    case plain(DatabaseKind)
    case history(HistoryDatabaseKind)

    static var allCases: [ContextDatabaseKind] {
        DatabaseKind.allCases.filter { $0 != .inMemoryHistory }.map { .plain($0) }
            + HistoryDatabaseKind.allCases.map { .history($0) }
    }

    func make() -> any Database {
        switch self {
        case .plain(let kind): return kind.make()
        case .history(let kind): return kind.make()
        }
    }

    /// Whether databases of this kind keep history; declared, see ``DatabaseKind/keepsHistory``.
    var keepsHistory: Bool {
        switch self {
        case .plain(let kind): kind.keepsHistory
        case .history: true
        }
    }

    /// The number of records in `database`, made by `make()`; `nil` for a kind without
    /// history. A kind declared with history that lost it fails the test.
    func recordCount(of database: any Database, sourceLocation: SourceLocation = #_sourceLocation) -> Int? {
        guard keepsHistory else { return nil }
        guard let history = database as? any HistoryDatabase else {
            Issue.record("\(self) is declared to keep history but is no longer a HistoryDatabase", sourceLocation: sourceLocation)
            return nil
        }
        return history.records(after: nil).count
    }

    var description: String {
        switch self {
        case .plain(let kind): kind.description
        case .history(let kind): kind.description
        }
    }
}

@Suite("Editing contexts: pending edits, commits, conflicts")
struct EditingContextTests {

    private func ids<Model: ModelProtocol>(_ models: [Model]) -> Set<InstanceKey> {
        Set(models.map(\.id))
    }

    // MARK: Pending edits

    @Test("Inside a context, create/get/active/all/delete reflect the pending edits", arguments: ContextDatabaseKind.allCases)
    func pendingEditsInsideContext(kind: ContextDatabaseKind) {
        let database = kind.make()
        Manuscript.create(in: database, id: 1, title: "Existing", words: 100)
        Manuscript.create(in: database, id: 2, title: "Doomed")
        let context = database.createEditingContext()

        let fresh: Manuscript = context.create(id: 3)
        fresh.title = "Fresh"
        context.get(id: 2, of: Manuscript.self)?.delete()
        let existing = context.get(id: 1, of: Manuscript.self)!
        existing.words += 50

        #expect(fresh.database === context)
        #expect(context.get(id: 3, of: Manuscript.self)?.title == "Fresh")
        #expect(context.active(id: 3, of: Manuscript.self) != nil)
        #expect(context.get(id: 2, of: Manuscript.self)?.status == .deleted)
        #expect(context.active(id: 2, of: Manuscript.self) == nil)
        #expect(existing.words == 150)
        #expect(existing.title == "Existing")
        #expect(ids(context.all(of: Manuscript.self)) == [1, 3])
        #expect(ids(context.all(Manuscript.self) { $0.words > 120 }) == [1])
        let statuses = Dictionary(uniqueKeysWithValues: context.all(model: Manuscript.modelId) { ($0, $1) })
        #expect(statuses == [1: .created, 2: .deleted, 3: .created])

        // getOrCreate restores the instance deleted in the context.
        let restored: Manuscript = context.getOrCreate(id: 2)
        #expect(restored.status == .created)
        #expect(restored.title == "Doomed")
        #expect(ids(context.all(of: Manuscript.self)) == [1, 2, 3])
    }

    @Test("Nothing is visible in the database before the commit", arguments: ContextDatabaseKind.allCases)
    func nothingVisibleBeforeCommit(kind: ContextDatabaseKind) {
        let database = kind.make()
        let existing = Manuscript.create(in: database, id: 1, title: "Existing", words: 100)
        let recordCount = kind.recordCount(of: database)
        let context = database.createEditingContext()
        #expect(!context.hasChanges)

        let fresh: Manuscript = context.create(id: 2)
        fresh.title = "Fresh"
        fresh.sequel = context.get(id: 1)
        context.get(id: 1, of: Manuscript.self)?.title = "Edited"
        context.get(id: 1, of: Manuscript.self)?.delete()

        #expect(context.hasChanges)
        #expect(database.get(id: 2, of: Manuscript.self) == nil)
        #expect(Manuscript(database: database, id: 2).status == .notCreated)
        #expect(existing.title == "Existing")
        #expect(existing.status == .created)
        #expect(ids(database.all(of: Manuscript.self)) == [1])
        #expect(kind.recordCount(of: database) == recordCount)
    }

    @Test("changedPaths lists each edited path once, in the order first edited")
    func changedPathsInOrder() {
        let database = InMemoryHistoryDatabase()
        let context = database.createEditingContext()
        let draft: Manuscript = context.create(id: 7)
        draft.words = 1
        draft.title = "T"
        draft.words = 2
        #expect(
            context.changedPaths == [
                draft.path(of: .instanceId),
                draft.path(of: .words),
                draft.path(of: .title)
            ])
    }

    // MARK: Committing

    @Test("A commit makes every edit visible in the database", arguments: ContextDatabaseKind.allCases)
    func commitMakesVisible(kind: ContextDatabaseKind) {
        let database = kind.make()
        Manuscript.create(in: database, id: 1, title: "Existing", words: 100)
        Manuscript.create(in: database, id: 2, title: "Doomed")
        let context = database.createEditingContext()

        let fresh: Manuscript = context.create(id: 3)
        fresh.title = "Fresh"
        fresh.sequel = context.get(id: 1)
        fresh.chapters = [context.get(id: 1)!, fresh]
        context.get(id: 1, of: Manuscript.self)?.words = 150
        context.get(id: 2, of: Manuscript.self)?.delete()
        context.commitChanges()

        #expect(!context.hasChanges)
        #expect(context.changedPaths.isEmpty)
        let committed = database.get(id: 3, of: Manuscript.self)
        #expect(committed?.title == "Fresh")
        #expect(committed?.sequel?.id == 1)
        #expect(committed?.chapters.map(\.id) == [1, 3])
        #expect(database.get(id: 1, of: Manuscript.self)?.words == 150)
        #expect(database.get(id: 2, of: Manuscript.self)?.status == .deleted)
        #expect(ids(database.all(of: Manuscript.self)) == [1, 3])
        // The context goes on showing the same state, now read from the database.
        #expect(ids(context.all(of: Manuscript.self)) == [1, 3])
        #expect(context.get(id: 3, of: Manuscript.self)?.title == "Fresh")
    }

    @Test("A context can be used again after a commit", arguments: ContextDatabaseKind.allCases)
    func reuseAfterCommit(kind: ContextDatabaseKind) {
        let database = kind.make()
        let context = database.createEditingContext()
        Parcel.create(in: context, id: 1, value: 1)
        context.commitChanges()
        context.get(id: 1, of: Parcel.self)?.value = 2
        #expect(database.get(id: 1, of: Parcel.self)?.value == 1)
        context.commitChanges()
        #expect(database.get(id: 1, of: Parcel.self)?.value == 2)
    }

    @Test("Committing without edits writes nothing", arguments: HistoryDatabaseKind.allCases)
    func emptyCommit(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        Parcel.create(in: database, id: 1, value: 1)
        let count = database.records(after: nil).count
        let context = database.createEditingContext()
        _ = context.get(id: 1, of: Parcel.self)?.value
        context.commitChanges()
        try context.commitChanges(onConflict: .fail)
        #expect(database.records(after: nil).count == count)
    }

    @Test("Every edit is kept in order: a path's history shows each intermediate value", arguments: HistoryDatabaseKind.allCases)
    func everyEditKeptInOrder(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let start = database.clock.now()
        let context = database.createEditingContext()
        let draft: Manuscript = context.create(id: 1)
        draft.words = 10
        draft.title = "First"
        draft.words = 20
        draft.title = "Second"
        draft.words = 30
        #expect(database.history(of: draft.path(of: .words), as: Int.self).isEmpty)
        context.commitChanges()

        #expect(database.history(of: draft.path(of: .words), as: Int.self).map(\.value) == [10, 20, 30])
        #expect(database.history(of: draft.path(of: .title), as: String.self).map(\.value) == ["First", "Second"])
        // The commit's records (an SQLite file also records Manuscript's description at the create).
        let written = database.records(after: start).filter { $0.path.model != ModelDescription.catalogModel }
        #expect(written.map(\.path.property) == [0, 2, 1, 2, 1, 2])
        #expect(written.map(\.timestamp) == written.map(\.timestamp).sorted())
        #expect(Set(written.map(\.timestamp)).count == written.count)
    }

    @Test("Discarding drops every pending edit; the context shows the database again", arguments: ContextDatabaseKind.allCases)
    func discard(kind: ContextDatabaseKind) {
        let database = kind.make()
        Parcel.create(in: database, id: 1, value: 1)
        let recordCount = kind.recordCount(of: database)
        let context = database.createEditingContext()
        context.get(id: 1, of: Parcel.self)?.value = 99
        context.get(id: 1, of: Parcel.self)?.delete()
        Parcel.create(in: context, id: 2, value: 2)

        context.discardChanges()
        #expect(!context.hasChanges)
        #expect(context.changedPaths.isEmpty)
        #expect(context.get(id: 1, of: Parcel.self)?.value == 1)
        #expect(context.active(id: 1, of: Parcel.self) != nil)
        #expect(context.get(id: 2, of: Parcel.self) == nil)
        #expect(context.all(of: Parcel.self).map(\.id) == [1])

        context.commitChanges()
        #expect(database.get(id: 1, of: Parcel.self)?.value == 1)
        #expect(database.get(id: 2, of: Parcel.self) == nil)
        #expect(kind.recordCount(of: database) == recordCount)
    }

    @Test("Nested contexts: the inner commit goes to the outer context only", arguments: ContextDatabaseKind.allCases)
    func nestedContexts(kind: ContextDatabaseKind) {
        let database = kind.make()
        let outer = database.createEditingContext()
        let inner = outer.createEditingContext()
        Parcel.create(in: inner, id: 1, value: 5)
        #expect(outer.get(id: 1, of: Parcel.self) == nil)

        inner.commitChanges()
        #expect(outer.get(id: 1, of: Parcel.self)?.value == 5)
        #expect(database.get(id: 1, of: Parcel.self) == nil)

        outer.commitChanges()
        #expect(database.get(id: 1, of: Parcel.self)?.value == 5)
    }

    @Test("Edits from many threads are all committed")
    func concurrentEdits() {
        let database = InMemoryHistoryDatabase()
        let context = database.createEditingContext()
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            Parcel.create(in: context, id: index, value: index)
        }
        #expect(context.all(of: Parcel.self).count == 100)
        context.commitChanges()
        let parcels = database.all(of: Parcel.self)
        #expect(parcels.count == 100)
        #expect(parcels.allSatisfy { $0.value == $0.id })
    }

    // MARK: Live overlay and snapshot

    @Test("A live context sees database changes on paths it has not edited", arguments: ContextDatabaseKind.allCases)
    func liveContextSeesDatabase(kind: ContextDatabaseKind) {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 1)
        let context = database.createEditingContext()
        let inContext = context.get(id: 1, of: Manuscript.self)!
        inContext.words = 500

        original.title = "B"
        original.words = 2
        Manuscript.create(in: database, id: 2, title: "New")

        #expect(inContext.title == "B")
        #expect(inContext.words == 500)
        #expect(context.get(id: 2, of: Manuscript.self)?.title == "New")
        #expect(ids(context.all(of: Manuscript.self)) == [1, 2])

        original.delete()
        #expect(context.active(id: 1, of: Manuscript.self) == nil)
    }

    @Test("A snapshot context does not see later database changes", arguments: HistoryDatabaseKind.allCases)
    func snapshotIgnoresDatabase(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 1)
        let doomed = Manuscript.create(in: database, id: 2, title: "Doomed")
        let snapshot = database.createEditingContextWithCurrentState()
        let live = database.createEditingContext()

        original.title = "B"
        doomed.delete()
        Manuscript.create(in: database, id: 3, title: "New")

        let seen = snapshot.get(id: 1, of: Manuscript.self)!
        #expect(seen.title == "A")
        #expect(snapshot.active(id: 2, of: Manuscript.self)?.title == "Doomed")
        #expect(snapshot.get(id: 3, of: Manuscript.self) == nil)
        #expect(ids(snapshot.all(of: Manuscript.self)) == [1, 2])

        #expect(live.get(id: 1, of: Manuscript.self)?.title == "B")
        #expect(live.active(id: 2, of: Manuscript.self) == nil)
        #expect(ids(live.all(of: Manuscript.self)) == [1, 3])

        // Its own edits show on top of the snapshot.
        seen.words = 42
        Manuscript.create(in: snapshot, id: 4, title: "Mine")
        #expect(seen.words == 42)
        #expect(ids(snapshot.all(of: Manuscript.self)) == [1, 2, 4])
        #expect(database.get(id: 4, of: Manuscript.self) == nil)
    }

    @Test("A snapshot context keeps showing its committed edits after the commit", arguments: HistoryDatabaseKind.allCases)
    func snapshotAfterCommit(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 1)
        let snapshot = database.createEditingContextWithCurrentState()
        let mine = Manuscript.create(in: snapshot, id: 2, title: "Mine")
        snapshot.get(id: 1, of: Manuscript.self)?.words = 7
        snapshot.commitChanges()

        #expect(snapshot.get(id: 2, of: Manuscript.self)?.title == "Mine")
        #expect(mine.title == "Mine")
        #expect(snapshot.get(id: 1, of: Manuscript.self)?.words == 7)
        #expect(ids(snapshot.all(of: Manuscript.self)) == [1, 2])
        #expect(database.get(id: 2, of: Manuscript.self)?.title == "Mine")

        // Later database changes are invisible again.
        original.title = "Changed later"
        Manuscript.create(in: database, id: 3)
        #expect(snapshot.get(id: 1, of: Manuscript.self)?.title == "A")
        #expect(snapshot.get(id: 3, of: Manuscript.self) == nil)
    }

    @Test("A snapshot commit makes everything visible in the database", arguments: HistoryDatabaseKind.allCases)
    func snapshotCommit(kind: HistoryDatabaseKind) {
        let database = kind.make()
        Manuscript.create(in: database, id: 1, title: "A")
        let snapshot = database.createEditingContextWithCurrentState()
        snapshot.get(id: 1, of: Manuscript.self)?.delete()
        Manuscript.create(in: snapshot, id: 2, title: "B", words: 3)
        #expect(ids(database.all(of: Manuscript.self)) == [1])
        snapshot.commitChanges()
        #expect(ids(database.all(of: Manuscript.self)) == [2])
        #expect(database.get(id: 1, of: Manuscript.self)?.status == .deleted)
        #expect(database.get(id: 2, of: Manuscript.self)?.words == 3)
    }

    // MARK: Conflicts

    @Test("By default the context's edits win over concurrent database changes", arguments: HistoryDatabaseKind.allCases)
    func newestWinsByDefault(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 10)
        for context in [database.createEditingContext(), database.createEditingContextWithCurrentState()] {
            let edited = context.get(id: 1, of: Manuscript.self)!
            _ = edited.words
            original.words = 20
            edited.words = 30
            context.commitChanges()
            #expect(original.words == 30)
            #expect(database.history(of: original.path(of: .words), as: Int.self).suffix(2).map(\.value) == [20, 30])
        }
    }

    @Test("commitChanges(onConflict: .newestWins) behaves like commitChanges()", arguments: HistoryDatabaseKind.allCases)
    func explicitNewestWins(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 10)
        let context = database.createEditingContext()
        context.get(id: 1, of: Manuscript.self)?.words = 30
        original.words = 20
        try context.commitChanges(onConflict: .newestWins)
        #expect(original.words == 30)
    }

    @Test("commitChanges(onConflict: .fail) throws the conflicting paths and writes nothing", arguments: HistoryDatabaseKind.allCases)
    func failOnConflict(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 10)
        let untouched = Manuscript.create(in: database, id: 2, title: "Other")
        let context = database.createEditingContext()
        let edited = context.get(id: 1, of: Manuscript.self)!
        #expect(edited.title == "A") // read only
        edited.words = 11 // written
        Manuscript.create(in: context, id: 3, title: "New")

        original.title = "B"
        original.words = 12
        untouched.title = "Changed, but not used by the context"
        let recordCount = database.records(after: nil).count

        let expected = [original.path(of: .title), original.path(of: .words)].sorted()
        #expect(throws: EditingContextError.conflicts(expected)) {
            try context.commitChanges(onConflict: .fail)
        }
        #expect(database.records(after: nil).count == recordCount)
        #expect(original.words == 12)
        #expect(database.get(id: 3, of: Manuscript.self) == nil)
        #expect(context.hasChanges)
        #expect(edited.words == 11)

        do {
            try context.commitChanges(onConflict: .fail)
            Issue.record("A second commit with .fail should still report the conflicts")
        } catch let error as EditingContextError {
            guard case .conflicts(let paths) = error else { return }
            #expect(paths == expected)
            #expect(error.description.contains(original.path(of: .title).description))
            #expect(error.description.contains(original.path(of: .words).description))
        }

        // The edits stayed pending: the default commit still writes them.
        context.commitChanges()
        #expect(original.words == 11)
        #expect(original.title == "B")
        #expect(database.get(id: 3, of: Manuscript.self)?.title == "New")
    }

    @Test("commitChanges(onConflict: .fail) commits when only unused paths changed", arguments: HistoryDatabaseKind.allCases)
    func failWithoutConflict(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 10)
        let context = database.createEditingContext()
        context.get(id: 1, of: Manuscript.self)?.words = 11
        original.title = "B"
        Manuscript.create(in: database, id: 2)
        try context.commitChanges(onConflict: .fail)
        #expect(original.words == 11)
        #expect(original.title == "B")
        #expect(!context.hasChanges)
    }

    @Test("A snapshot context conflicts with changes made after the snapshot, even if read later", arguments: HistoryDatabaseKind.allCases)
    func snapshotConflict(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let original = Manuscript.create(in: database, id: 1, title: "A", words: 10)
        let snapshot = database.createEditingContextWithCurrentState()
        original.words = 20
        let edited = snapshot.get(id: 1, of: Manuscript.self)!
        #expect(edited.words == 10)
        edited.words = 30
        #expect(throws: EditingContextError.conflicts([original.path(of: .words)])) {
            try snapshot.commitChanges(onConflict: .fail)
        }
        #expect(original.words == 20)
    }

    @Test("Creating an instance the database created meanwhile is a conflict", arguments: HistoryDatabaseKind.allCases)
    func createCreateConflict(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let context = database.createEditingContext()
        let mine: Parcel = context.create(id: 1)
        let theirs: Parcel = database.create(id: 1)
        theirs.value = 2
        #expect(throws: EditingContextError.conflicts([mine.path(of: .instanceId)])) {
            try context.commitChanges(onConflict: .fail)
        }
    }

    // MARK: Batches

    @Test("A commit is one batch of a BatchDatabase")
    func commitIsOneBatch() {
        let database = RollbackDatabase()
        let context = database.createEditingContext()
        Parcel.create(in: context, id: 1, value: 1)
        Parcel.create(in: context, id: 2, value: 2)
        context.commitChanges()
        #expect(database.batchCount == 1)
        #expect(database.all(of: Parcel.self).count == 2)
    }

    @Test("When the batch fails, nothing is written and the edits stay pending")
    func failedBatch() throws {
        let database = RollbackDatabase()
        Parcel.create(in: database, id: 1, value: 1)
        let context = database.createEditingContext()
        context.get(id: 1, of: Parcel.self)?.value = 10
        Parcel.create(in: context, id: 2, value: 2)

        database.failNextBatch = true
        context.commitChanges()
        #expect(database.get(id: 1, of: Parcel.self)?.value == 1)
        #expect(database.get(id: 2, of: Parcel.self) == nil)
        #expect(context.hasChanges)
        #expect(context.get(id: 1, of: Parcel.self)?.value == 10)

        database.failNextBatch = true
        #expect(throws: RollbackDatabase.Failure.self) {
            try context.commitChanges(onConflict: .newestWins)
        }
        #expect(database.get(id: 2, of: Parcel.self) == nil)

        try context.commitChanges(onConflict: .newestWins)
        #expect(database.get(id: 1, of: Parcel.self)?.value == 10)
        #expect(database.get(id: 2, of: Parcel.self)?.value == 2)
        #expect(!context.hasChanges)
    }

    // MARK: Documented samples

    @Test("Documented sample: create in a context, then commit", arguments: ContextDatabaseKind.allCases)
    func documentedContext(kind: ContextDatabaseKind) {
        let database = kind.make()
        let context = database.createEditingContext()

        let newParcel: Parcel = context.create(id: 123)
        newParcel.value = 42
        #expect(database.get(id: 123, of: Parcel.self) == nil)

        context.commitChanges()
        #expect(database.get(id: 123, of: Parcel.self)?.value == 42)
    }

    @Test("Documented sample: a context on a snapshot of the current state", arguments: HistoryDatabaseKind.allCases)
    func documentedSnapshotContext(kind: HistoryDatabaseKind) {
        let database = kind.make()
        Parcel.create(in: database, id: 1, value: 1)
        let context = database.createEditingContextWithCurrentState()

        database.get(id: 1, of: Parcel.self)?.value = 2
        Parcel.create(in: database, id: 2, value: 3)
        #expect(context.get(id: 1, of: Parcel.self)?.value == 1)
        #expect(context.all(of: Parcel.self).map(\.id) == [1])
    }
}

/// A dictionary database whose batches roll back when they fail; it can be told to fail
/// the next batch, as a full disk would.
final class RollbackDatabase: BatchDatabase {

    struct Failure: Error {}

    private var values: [Path: any DatabaseValue] = [:]
    var failNextBatch = false
    private(set) var batchCount = 0

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        values[path].flatMap { $0 as? Value }
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        values[path] = value
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        values.compactMap { path, value in
            guard path.model == model, path.isStatus, let status = value as? InstanceStatus else { return nil }
            return predicate(path.instance, status)
        }
    }

    func batch<Result>(_ body: () throws -> Result) throws -> Result {
        batchCount += 1
        let saved = values
        do {
            let result = try body()
            if failNextBatch {
                failNextBatch = false
                throw Failure()
            }
            return result
        } catch {
            values = saved
            throw error
        }
    }
}
