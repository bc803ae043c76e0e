import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Model ids 1340–1359.

@Model(id: 1340)
final class Sketch {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var strokes: Int

    @Property(id: 3)
    var caption: String? = "untitled"

    @Reference(id: 4)
    var layer: Sketch?
}

private struct Interrupted: Error {}

@Suite("Undo and redo of committed changes")
struct UndoTests {

    // MARK: Single sets

    @Test("Undo reverts a single set; redo re-applies it", arguments: HistoryDatabaseKind.undoableBases)
    func undoRedoSingleSet(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "A")
        database.removeAllSteps()
        #expect(!database.canUndo)
        sketch.title = "B"
        #expect(database.canUndo)
        #expect(!database.canRedo)

        #expect(database.undo())
        #expect(sketch.title == "A")
        #expect(database.canRedo)
        #expect(!database.canUndo)

        #expect(database.redo())
        #expect(sketch.title == "B")
        #expect(!database.canRedo)
        #expect(database.canUndo)
    }

    @Test("Undo and redo report false when there is nothing to do")
    func nothingToUndo() {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        #expect(!database.undo())
        #expect(!database.redo())
        database.set(1, for: Path(model: 1359, instance: 1, property: 1))
        #expect(database.undo())
        #expect(!database.undo())
        #expect(database.redo())
        #expect(!database.redo())
    }

    @Test("Several undos walk back, redos walk forward", arguments: HistoryDatabaseKind.undoableBases)
    func undoRedoSequence(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch: Sketch = database.create(id: 1)
        for count in 1 ... 3 { sketch.strokes = count }
        database.undo()
        database.undo()
        #expect(sketch.strokes == 1)
        database.redo()
        #expect(sketch.strokes == 2)
        database.redo()
        #expect(sketch.strokes == 3)
        #expect(!database.redo())
    }

    @Test("Undoing a first-time set reads the default again", arguments: HistoryDatabaseKind.undoableBases)
    func undoFirstSet(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch: Sketch = database.create(id: 1)
        sketch.title = "First"
        sketch.caption = nil
        sketch.layer = sketch

        database.undo()
        #expect(sketch.layer == nil)
        database.undo()
        #expect(sketch.caption == "untitled")
        database.undo()
        #expect(sketch.title == "")
        let raw: String? = database.get(sketch.path(of: .title))
        #expect(raw == nil)

        database.redo()
        #expect(sketch.title == "First")
    }

    @Test("Undoing a create makes the instance not active; redo brings it back", arguments: HistoryDatabaseKind.undoableBases)
    func undoCreate(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch: Sketch = database.create(id: 1)
        database.undo()
        #expect(database.active(id: 1, of: Sketch.self) == nil)
        #expect(database.get(id: 1, of: Sketch.self) == nil)
        #expect(sketch.status == .notCreated)
        #expect(database.all(of: Sketch.self).isEmpty)

        database.redo()
        #expect(database.active(id: 1, of: Sketch.self) != nil)
        #expect(database.all(of: Sketch.self).map(\.id) == [1])
    }

    @Test("create(in:id:…) with values and deleteAndClearProperties() are one step each", arguments: HistoryDatabaseKind.undoableBases)
    func createWithValuesIsOneStep(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "cat", strokes: 12)
        #expect(database.undo())
        #expect(database.active(id: 1, of: Sketch.self) == nil)
        #expect(sketch.title == "" && sketch.strokes == 0)
        #expect(!database.undo(), "the create was more than one step")
        #expect(database.redo())
        #expect(sketch.status == .created && sketch.title == "cat" && sketch.strokes == 12)

        sketch.deleteAndClearProperties()
        #expect(database.undo())
        #expect(sketch.status == .created && sketch.title == "cat" && sketch.strokes == 12)
        #expect(database.undo())
        #expect(sketch.status == .notCreated)
    }

    @Test("Undoing a delete restores the instance", arguments: HistoryDatabaseKind.undoableBases)
    func undoDelete(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "Kept")
        sketch.delete()
        #expect(database.active(id: 1, of: Sketch.self) == nil)
        database.undo()
        #expect(database.active(id: 1, of: Sketch.self)?.title == "Kept")
    }

    @Test("Undo writes new records: history stays complete", arguments: HistoryDatabaseKind.undoableBases)
    func undoKeepsHistory(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "A")
        sketch.title = "B"
        let beforeUndo = database.clock.now()
        let count = database.records(after: nil).count
        database.undo()
        #expect(database.records(after: nil).count == count + 1)
        #expect(database.history(of: sketch.path(of: .title), as: String.self).map(\.value) == ["A", "B", "A"])
        #expect(database.records(after: beforeUndo).map(\.path) == [sketch.path(of: .title)])
        // The state before the undo is still in history.
        #expect(database.view(at: beforeUndo).get(id: 1, of: Sketch.self)?.title == "B")
        database.redo()
        #expect(database.history(of: sketch.path(of: .title), as: String.self).map(\.value) == ["A", "B", "A", "B"])
    }

    @Test("The wrapped database gets the undo as ordinary records", arguments: HistoryDatabaseKind.undoableBases)
    func wrappedDatabaseSeesUndo(kind: HistoryDatabaseKind) {
        let inner = kind.make()
        let database = HistoryDatabaseKind.undoable(over: inner)
        let sketch = Sketch.create(in: database, id: 1, strokes: 1)
        sketch.strokes = 2
        database.undo()
        #expect(inner.get(id: 1, of: Sketch.self)?.strokes == 1)
        #expect(database.wrappedDatabase === inner)
    }

    // MARK: Batches and contexts

    @Test("A batch is undone and redone as one step", arguments: HistoryDatabaseKind.undoableBases)
    func undoBatch(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let first = Sketch.create(in: database, id: 1, title: "One", strokes: 1)
        database.removeAllSteps()
        try database.batch {
            first.title = "One'"
            first.strokes = 2
            first.strokes = 3
            let second: Sketch = database.create(id: 2)
            second.title = "Two"
            first.layer = second
        }
        database.undo()
        #expect(first.title == "One")
        #expect(first.strokes == 1)
        #expect(first.layer == nil)
        #expect(database.active(id: 2, of: Sketch.self) == nil)
        #expect(!database.canUndo)

        database.redo()
        #expect(first.title == "One'")
        #expect(first.strokes == 3)
        #expect(first.layer?.title == "Two")
        #expect(database.active(id: 2, of: Sketch.self) != nil)
    }

    @Test("A batch started inside another joins it: one step", arguments: HistoryDatabaseKind.undoableBases)
    func nestedBatch(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, strokes: 0)
        database.removeAllSteps()
        let result = try database.batch {
            sketch.strokes = 1
            return try database.batch {
                sketch.strokes = 2
                return "inner"
            }
        }
        #expect(result == "inner")
        database.undo()
        #expect(sketch.strokes == 0)
        #expect(!database.canUndo)
    }

    @Test("A batch that throws keeps none of its writes and is no undo step", arguments: HistoryDatabaseKind.undoableBases)
    func throwingBatch(kind: HistoryDatabaseKind) {
        let inner = kind.make()
        let database = HistoryDatabaseKind.undoable(over: inner)
        let sketch = Sketch.create(in: database, id: 1, strokes: 0)
        database.removeAllSteps()
        #expect(throws: Interrupted.self) {
            try database.batch {
                sketch.strokes = 5
                throw Interrupted()
            }
        }
        #expect(!database.canUndo)
        // BatchDatabase promises all or nothing, also over a database without batches.
        #expect(sketch.strokes == 0)
    }

    @Test("A nested batch that throws inside one that commits keeps none of its writes, and redo does not bring them back", arguments: HistoryDatabaseKind.undoableBases)
    func throwingNestedBatch(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "A", strokes: 0)
        database.removeAllSteps()
        try database.batch {
            sketch.strokes = 1
            #expect(throws: Interrupted.self) {
                try database.batch {
                    sketch.title = "never"
                    throw Interrupted()
                }
            }
        }
        #expect(sketch.title == "A")
        #expect(sketch.strokes == 1)
        #expect(database.undo())
        #expect(sketch.strokes == 0)
        #expect(database.redo())
        #expect(sketch.strokes == 1)
        #expect(sketch.title == "A")
    }

    /// Over a database without batches, taking a batch back by writing the earlier values
    /// as new records made them newer than other replicas' edits: synchronization then
    /// erased another replica's value, or put an older one over its newer edit, everywhere.
    @Test("A batch that throws leaves nothing to synchronize: other replicas' values and newer edits survive", arguments: HistoryDatabaseKind.undoableBases)
    func throwingBatchLeavesOtherReplicasEdits(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let other = InMemoryHistoryDatabase()
        let title = Path(model: Sketch.modelId, instance: 1, property: 1)
        let strokes = Path(model: Sketch.modelId, instance: 1, property: 2)
        other.set("theirs", for: title) // not pulled yet
        database.set(1, for: strokes)
        other.set(2, for: strokes) // newer than this replica's write
        let pulled = Timestamp(time: database.clock.now().time + 60_000_000, replica: 99)
        #expect(throws: Interrupted.self) {
            try database.batch {
                database.set("mine", for: title)
                database.set(3, for: strokes)
                database.apply(Record(path: Path(model: Sketch.modelId, instance: 2, property: 1), timestamp: pulled, value: "pulled"))
                throw Interrupted()
            }
        }
        #expect(database.records().count == 1, "only the write before the batch: \(database.records())")
        for record in other.records() { database.apply(record) }
        for record in database.records() { other.apply(record) }
        for replica in [database as any HistoryDatabase, other] {
            #expect(replica.get(title) as String? == "theirs")
            #expect(replica.get(strokes) as Int? == 2)
        }
    }

    struct Note: Codable, Identifiable, Equatable {
        var id: Int
        var text: String
    }

    @Test("Over observers of an in-memory database, a batch that throws withdraws its records and live results show the stored structs")
    func withdrawnUnderObservers() throws {
        let undoable = UndoableDatabase(wrapping: ObservedDatabase(wrapping: InMemoryHistoryDatabase()))
        let notes = undoable.collection(Note.self)
        try notes.save([Note(id: 1, text: "kept"), Note(id: 2, text: "also kept")])
        let live = try notes.live(where: .all, sortedBy: [.ascending(\.id)])
        let stored = undoable.records().map(\.description)
        #expect(throws: Interrupted.self) {
            try undoable.batch {
                try notes.save(Note(id: 1, text: "taken back"))
                try notes.save(Note(id: 3, text: "never stored"))
                try notes.delete(id: 2)
                throw Interrupted()
            }
        }
        #expect(live.results == [Note(id: 1, text: "kept"), Note(id: 2, text: "also kept")])
        #expect(try notes.fetch() == live.results)
        #expect(undoable.records().map(\.description) == stored)
        #expect(undoable.undo())
        #expect(try notes.fetch().isEmpty)
    }

    @Test("A synchronized record applied in a batch that throws is taken back with it, and is no undo step", arguments: HistoryDatabaseKind.undoableBases)
    func syncedRecordInThrowingBatch(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, title: "A", strokes: 0)
        database.removeAllSteps()
        let newer = Timestamp(time: database.clock.now().time + 60_000_000, replica: 99)
        let strokes = Path(model: Sketch.modelId, instance: 1, property: 2)
        #expect(throws: Interrupted.self) {
            try database.batch {
                sketch.title = "B"
                database.apply(Record(path: strokes, timestamp: newer, value: 7))
                #expect(sketch.strokes == 7)
                throw Interrupted()
            }
        }
        #expect(sketch.title == "A")
        #expect(sketch.strokes == 0)
        #expect(!database.canUndo)
        // In a batch that commits, it stays, and only the local write is undone.
        try database.batch {
            sketch.title = "C"
            database.apply(Record(path: strokes, timestamp: Timestamp(time: newer.time + 1, replica: 99), value: 8))
        }
        #expect(database.undo())
        #expect(sketch.title == "A")
        #expect(sketch.strokes == 8)
        #expect(!database.canUndo)
    }

    @Test("An editing context's commit is undone as one step", arguments: HistoryDatabaseKind.undoableBases)
    func undoContextCommit(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let existing = Sketch.create(in: database, id: 1, title: "Existing", strokes: 1)
        let doomed = Sketch.create(in: database, id: 2, title: "Doomed")
        database.removeAllSteps()

        let context = database.createEditingContext()
        context.get(id: 1, of: Sketch.self)?.strokes = 2
        context.get(id: 1, of: Sketch.self)?.strokes = 3
        context.get(id: 2, of: Sketch.self)?.delete()
        let fresh = Sketch.create(in: context, id: 3, title: "Fresh")
        fresh.layer = context.get(id: 1)
        context.commitChanges()
        #expect(existing.strokes == 3)

        database.undo()
        #expect(existing.strokes == 1)
        #expect(doomed.status == .created)
        #expect(database.active(id: 3, of: Sketch.self) == nil)
        #expect(Set(database.all(of: Sketch.self).map(\.id)) == [1, 2])
        #expect(!database.canUndo)

        database.redo()
        #expect(existing.strokes == 3)
        #expect(doomed.status == .deleted)
        #expect(database.active(id: 3, of: Sketch.self)?.layer?.id == 1)
    }

    @Test("A snapshot context's commit is one step too", arguments: HistoryDatabaseKind.undoableBases)
    func undoSnapshotCommit(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, strokes: 1)
        database.removeAllSteps()
        let context = database.createEditingContextWithCurrentState()
        context.get(id: 1, of: Sketch.self)?.strokes = 10
        context.get(id: 1, of: Sketch.self)?.title = "Snapshot"
        context.commitChanges()
        database.undo()
        #expect(sketch.strokes == 1)
        #expect(sketch.title == "")
        #expect(!database.canUndo)
    }

    @Test("A context commit refused for conflicts writes nothing and adds no step", arguments: HistoryDatabaseKind.undoableBases)
    func refusedCommitIsNoStep(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch = Sketch.create(in: database, id: 1, strokes: 1)
        let context = database.createEditingContext()
        context.get(id: 1, of: Sketch.self)?.strokes = 5
        sketch.strokes = 2
        database.removeAllSteps()
        #expect(throws: EditingContextError.conflicts([Path(model: Sketch.modelId, instance: 1, property: 2)])) { // strokes
            try context.commitChanges(onConflict: .fail)
        }
        #expect(!database.canUndo)
        #expect(sketch.strokes == 2)
    }

    @Test("A write from another thread during a batch waits for it and is a step of its own")
    func otherThreadDuringBatch() throws {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        let mine = Sketch.create(in: database, id: 1, strokes: 0)
        let theirs = Sketch.create(in: database, id: 2, strokes: 0)
        database.removeAllSteps()
        let theirPath = theirs.path(of: .strokes)
        let writing = Handoff<ThreadProbe>()
        let written = Handoff<Bool>()
        try database.batch {
            mine.strokes = 1
            let other = TestThread {
                writing.put(ThreadProbe.current())
                database.set(7, for: theirPath)
                written.put(true)
            }
            // The other thread is inside its write now; the write must wait for the batch,
            // not join it. Seeing the thread blocked proves the two really overlapped.
            let probe = try #require(writing.take(), "the other thread never started its write")
            #expect(waitUntil { probe.isWaiting || other.isFinished }, "the other thread neither blocked nor finished")
            #expect(!other.isFinished, "the other thread's write went through during the batch")
            #expect(theirs.strokes == 0)
        }
        #expect(written.take() == true)
        #expect(theirs.strokes == 7)
        database.undo() // the other thread's write, made after the batch
        #expect(theirs.strokes == 0)
        #expect(mine.strokes == 1)
        database.undo() // the batch
        #expect(mine.strokes == 0)
        #expect(!database.canUndo)
    }

    @Test("A synchronized record from another thread during a batch that throws waits for it and is kept")
    func otherThreadSyncDuringThrowingBatch() throws {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        let mine = Sketch.create(in: database, id: 1, strokes: 0)
        let theirs = Sketch.create(in: database, id: 2, strokes: 0)
        let path = theirs.path(of: .strokes)
        let newer = Timestamp(time: database.clock.now().time + 60_000_000, replica: 99)
        let applying = Handoff<ThreadProbe>()
        let applied = Handoff<Bool>()
        var other: TestThread?
        #expect(throws: Interrupted.self) {
            try database.batch {
                mine.strokes = 1
                other = TestThread {
                    applying.put(ThreadProbe.current())
                    database.apply(Record(path: path, timestamp: newer, value: 7))
                    applied.put(true)
                }
                let probe = try #require(applying.take(), "the other thread never started applying")
                #expect(waitUntil { probe.isWaiting || other?.isFinished == true }, "the other thread neither blocked nor finished")
                #expect(other?.isFinished == false, "the record was applied during the batch")
                throw Interrupted()
            }
        }
        #expect(applied.take() == true)
        // The batch took back its own write only.
        #expect(mine.strokes == 0)
        #expect(theirs.strokes == 7)
    }

    @Test("After undoing a create, all(model:) lists no status for the instance", arguments: HistoryDatabaseKind.undoableBases)
    func undoneCreateNotListed(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let _: Sketch = database.create(id: 1)
        database.undo()
        let listed = database.all(model: Sketch.modelId) { instance, status in (instance, status) }
        #expect(listed.isEmpty)
    }

    // MARK: Steps

    @Test("A new change clears the redo steps", arguments: HistoryDatabaseKind.undoableBases)
    func newChangeClearsRedo(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let sketch: Sketch = database.create(id: 1)
        sketch.strokes = 1
        sketch.strokes = 2
        database.undo()
        #expect(database.canRedo)
        sketch.title = "Different"
        #expect(!database.canRedo)
        #expect(!database.redo())
        #expect(sketch.strokes == 1)
    }

    @Test("Only `depth` steps are kept", arguments: HistoryDatabaseKind.undoableBases)
    func depthLimit(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable(depth: 3)
        #expect(database.depth == 3)
        let sketch: Sketch = database.create(id: 1)
        for count in 1 ... 5 { sketch.strokes = count }
        #expect(database.undo())
        #expect(database.undo())
        #expect(database.undo())
        #expect(!database.undo())
        #expect(sketch.strokes == 2)
        #expect(database.active(id: 1, of: Sketch.self) != nil)
    }

    @Test("The depth is at least one")
    func minimumDepth() {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase(), depth: 0)
        #expect(database.depth == 1)
        let sketch: Sketch = database.create(id: 1)
        sketch.strokes = 1
        #expect(database.undo())
        #expect(!database.undo())
        #expect(sketch.status == .created)
    }

    @Test("Writes with explicit timestamps (as from a sync) are not undoable steps", arguments: HistoryDatabaseKind.undoableBases)
    func timestampedWritesPassThrough(kind: HistoryDatabaseKind) {
        let database = kind.makeUndoable()
        let path = Path(model: Sketch.modelId, instance: 1, property: 2)
        database.set(7, for: path, timestamp: database.clock.now())
        #expect(!database.canUndo)
        let stored: Int? = database.get(path)
        #expect(stored == 7)
    }

    @Test("removeAllSteps() forgets undo and redo steps")
    func removeAllSteps() {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        let sketch: Sketch = database.create(id: 1)
        sketch.strokes = 1
        database.undo()
        database.removeAllSteps()
        #expect(!database.canUndo)
        #expect(!database.canRedo)
        #expect(sketch.strokes == 0)
    }

    @Test("Undo after another writer changed the path restores the value before the undone change")
    func undoOverOtherWriter() {
        let inner = InMemoryHistoryDatabase()
        let database = HistoryDatabaseKind.undoable(over: inner)
        let sketch: Sketch = database.create(id: 1)
        sketch.strokes = 1
        inner.get(id: 1, of: Sketch.self)?.title = "Elsewhere"
        database.undo()
        #expect(sketch.strokes == 0)
        #expect(sketch.title == "Elsewhere")
    }
}
