import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import Testing

// Model ids 3000–3009 in this file.

/// `modelSummaries()` reads the counts the file keeps as statuses are written (format 9),
/// so they must follow every way a status changes.
@Suite("SQLiteDatabase: instance counts kept by the writes")
struct InstanceCountsTests {

    static let model: ModelKey = 3000

    /// (created, deleted) of `model`, as `modelSummaries()` reads them.
    static func counts(_ database: SQLiteDatabase, model: ModelKey = model) throws -> [Int] {
        let summary = try database.modelSummaries().first { $0.model == model }
        return [summary?.created ?? 0, summary?.deleted ?? 0]
    }

    static func status(_ instance: InstanceKey) -> Path {
        Path(model: model, instance: instance, property: PropertyKey.instanceId)
    }

    @Test("creates, deletes, a restore, undo and redo, and the same status again change the counts as they change the statuses")
    func createDeleteUndo() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        for id in 1 ... 3 { Item.create(in: database, id: id, title: "item \(id)") }
        #expect(try Self.counts(database, model: Item.modelId) == [3, 0])
        database.get(id: 2, of: Item.self)?.delete()
        #expect(try Self.counts(database, model: Item.modelId) == [2, 1])
        database.set(InstanceStatus.created, for: Path(model: Item.modelId, instance: 2, property: PropertyKey.instanceId))
        #expect(try Self.counts(database, model: Item.modelId) == [3, 0])
        // Undo of a create takes the instance out (it writes `.notCreated`); redo brings it back.
        let undoable = UndoableDatabase(wrapping: database)
        undoable.set(InstanceStatus.created, for: Path(model: Item.modelId, instance: 4, property: PropertyKey.instanceId))
        #expect(try Self.counts(database, model: Item.modelId) == [4, 0])
        #expect(undoable.undo())
        #expect(try Self.counts(database, model: Item.modelId) == [3, 0])
        #expect(undoable.redo())
        #expect(try Self.counts(database, model: Item.modelId) == [4, 0])
        // Several statuses of one instance in one batch count once, as its last.
        try database.batch {
            database.set(InstanceStatus.created, for: Self.status(1))
            database.set(InstanceStatus.deleted, for: Self.status(1))
            database.set(InstanceStatus.created, for: Self.status(2))
            database.set(InstanceStatus.created, for: Self.status(2))
        }
        #expect(try Self.counts(database) == [1, 1])
        // They are in the file: another connection reads them.
        database.close()
        let reopened = try SQLiteDatabase(path: directory.file(), options: .init(readOnly: true))
        #expect(try Self.counts(reopened) == [1, 1])
        #expect(try Self.counts(reopened, model: Item.modelId) == [4, 0])
    }

    @Test("a batch that throws, and a savepoint that throws inside one that commits, count nothing of what they rolled back")
    func rollback() throws {
        struct Failure: Error {}
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        database.set(InstanceStatus.created, for: Self.status(1))
        #expect(throws: Failure.self) {
            try database.batch {
                // More than a flush's rows, so that some are written before the throw.
                for id in 2 ... 40 { database.set(InstanceStatus.created, for: Self.status(InstanceKey(id))) }
                database.set(InstanceStatus.deleted, for: Self.status(1))
                throw Failure()
            }
        }
        #expect(try Self.counts(database) == [1, 0])
        try database.batch {
            for id in 2 ... 40 { database.set(InstanceStatus.created, for: Self.status(InstanceKey(id))) }
            _ = try? database.batch {
                database.set(InstanceStatus.deleted, for: Self.status(1))
                for id in 41 ... 80 { database.set(InstanceStatus.created, for: Self.status(InstanceKey(id))) }
                throw Failure()
            }
        }
        #expect(try Self.counts(database) == [40, 0])
    }

    @Test("records applied with their timestamps (sync) count when they become current, not when they arrive older, nor twice")
    func syncedRecords() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        let older = Timestamp(time: 1_000, counter: 0, replica: 9)
        let newer = Timestamp(time: 2_000, counter: 0, replica: 9)
        database.set(InstanceStatus.deleted, for: Self.status(1), timestamp: newer)
        database.set(InstanceStatus.created, for: Self.status(1), timestamp: older)
        database.set(InstanceStatus.deleted, for: Self.status(1), timestamp: newer)
        database.set(InstanceStatus.created, for: Self.status(2), timestamp: older)
        database.set(InstanceStatus.deleted, for: Self.status(2), timestamp: newer)
        database.apply(Record(path: Self.status(3), timestamp: older, value: InstanceStatus.created))
        #expect(try Self.counts(database) == [1, 2])
    }

    @Test("an import counts the instances it brings, as the exporting file counted them")
    func importing() throws {
        let directory = TemporaryDirectory()
        let source = try SQLiteDatabase(path: directory.file("source.sqlite"))
        for id in 1 ... 30 { source.set(InstanceStatus.created, for: Self.status(InstanceKey(id))) }
        for id in 1 ... 10 { source.set(InstanceStatus.deleted, for: Self.status(InstanceKey(id))) }
        let target = try SQLiteDatabase(path: directory.file("target.sqlite"))
        try target.importRecords(from: try source.exportRecords())
        #expect(try Self.counts(source) == [20, 10])
        #expect(try Self.counts(target) == [20, 10])
        // Importing the same records again changes nothing.
        try target.importRecords(from: try source.exportRecords())
        #expect(try Self.counts(target) == [20, 10])
    }

    @Test("a format 8 file gets its counts once opened for writing; opened read-only it is counted by scanning")
    func formatEight() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let database = try SQLiteDatabase(path: path)
        for id in 1 ... 5 { database.set(InstanceStatus.created, for: Self.status(InstanceKey(id))) }
        database.set(InstanceStatus.deleted, for: Self.status(5))
        database.close()
        let queue = try rawQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "DROP TABLE instance_counts; PRAGMA user_version = 8") }
        try queue.close()
        let readOnly = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        #expect(try Self.counts(readOnly) == [4, 1])
        readOnly.close()
        let writable = try SQLiteDatabase(path: path)
        writable.set(InstanceStatus.created, for: Self.status(6))
        #expect(try Self.counts(writable) == [5, 1])
        writable.close()
        let version = try rawQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int.fetchOne(db, sql: "SELECT sum(count) FROM instance_counts"))
        }
        #expect(version.0 == 9 && version.1 == 6)
    }
}
