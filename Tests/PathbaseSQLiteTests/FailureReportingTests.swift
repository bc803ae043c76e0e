import Foundation
import GRDBSQLite
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: failures a user can read, and where they go")
struct FailureReportingTests {

    @Test("Errors read as sentences through localizedDescription and keep SQLite's code")
    func localizedDescriptions() {
        let full = SQLiteDatabaseError.sqlite(code: SQLITE_FULL, message: "database or disk is full")
        #expect(full.localizedDescription.hasPrefix("The disk is full"))
        #expect(full.localizedDescription.contains("SQLite error 13"))
        #expect(full.sqliteCode == SQLITE_FULL)
        let damaged = SQLiteDatabaseError.sqlite(code: SQLITE_CORRUPT, message: "database disk image is malformed")
        #expect(damaged.localizedDescription.contains("damaged; run `pathbase check FILE`"))
        let locked = SQLiteDatabaseError.sqlite(code: SQLITE_BUSY, message: "database is locked")
        #expect(locked.localizedDescription.hasPrefix("The database is locked by another process"))
        #expect(SQLiteDatabaseError.closed.localizedDescription == "The database is closed; open it again to read or write.")
        #expect(SQLiteDatabaseError.corrupt(path: "a.sqlite", reason: "truncated").localizedDescription.contains("run `pathbase check a.sqlite`"))
        #expect(SQLiteDatabaseError.closed.sqliteCode == nil)
        // Not Foundation's "The operation couldn't be completed" for any case.
        #expect(!SQLiteDatabaseError.notADatabase(path: "x").localizedDescription.contains("operation"))
    }

    @Test("A write to a file another process keeps locked goes to the error handler as 'locked', and the value stays old")
    func lockedWriteIsReported() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let log = ErrorLog()
        let writer = try SQLiteDatabase(path: path)
        Item.create(in: writer, id: 1, title: "old")
        let other = try SQLiteDatabase(path: path, options: .init(busyTimeout: 0.05, errorHandler: log.handler))
        try writer.batch {
            writer.get(id: 1, of: Item.self)?.title = "held"
            other.get(id: 1, of: Item.self)?.title = "blocked"
        }
        #expect(log.errors.count == 1)
        #expect(log.errors.first?.sqliteCode.map { $0 & 0xFF } == SQLITE_BUSY)
        #expect(log.errors.first?.localizedDescription.hasPrefix("The database is locked by another process") == true)
        #expect(other.get(id: 1, of: Item.self)?.title == "held")
    }

    @Test("After close(), reads and writes report .closed to the error handler; throwing variants throw it")
    func useAfterClose() throws {
        let log = ErrorLog()
        let database = try SQLiteDatabase(options: .init(errorHandler: log.handler))
        let path = Path(model: 2, instance: 1, property: 1)
        database.set("before", for: path)
        database.close()
        database.set("after", for: path)
        let read: String? = database.get(path)
        #expect(read == nil)
        #expect(log.errors == [.closed, .closed])
        #expect(throws: SQLiteDatabaseError.closed) { try database.store("again", for: path) }
        #expect(throws: SQLiteDatabaseError.closed) { try database.batch {} }
    }

    @Test("A read-only database never creates or changes a file")
    func readOnly() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("missing.sqlite")
        #expect(throws: SQLiteDatabaseError.noDatabase(path: missing)) {
            _ = try SQLiteDatabase(path: missing, options: .init(readOnly: true))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let empty = directory.file("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(throws: SQLiteDatabaseError.noDatabase(path: empty)) {
            _ = try SQLiteDatabase(path: empty, options: .init(readOnly: true))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)

        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path, options: .init(keepsHistory: false))
            Item.create(in: database, id: 1, title: "kept")
            database.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let log = ErrorLog()
        let reader = try SQLiteDatabase(path: path, options: .init(readOnly: true, errorHandler: log.handler))
        #expect(reader.keepsHistory == false)
        #expect(reader.get(id: 1, of: Item.self)?.title == "kept")
        reader.get(id: 1, of: Item.self)?.title = "changed"
        #expect(log.errors.first?.sqliteCode.map { $0 & 0xFF } == SQLITE_READONLY)
        #expect(reader.get(id: 1, of: Item.self)?.title == "kept")
        reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("EditingContext.commitChanges() hands a failed commit to its error handler and keeps the edits")
    func contextCommitFailureIsReported() throws {
        let database = try SQLiteDatabase(options: .init(errorHandler: { _ in }))
        let context = database.createEditingContext()
        let failures = ErrorList()
        context.errorHandler = failures.handler
        context.set("draft", for: Path(model: 2, instance: 1, property: 1))
        database.close()
        context.commitChanges()
        #expect(failures.errors.map { $0 as? SQLiteDatabaseError } == [.closed])
        #expect(context.hasChanges)
        #expect(throws: SQLiteDatabaseError.closed) { try context.commitChanges(onConflict: .newestWins) }
    }

    @Test("UndoableDatabase: undo() reports a failed write to its error handler, performUndo() throws it; the step stays")
    func undoFailureIsReported() throws {
        let database = try SQLiteDatabase(options: .init(errorHandler: { _ in }))
        let undoable = UndoableDatabase(wrapping: database)
        let failures = ErrorList()
        undoable.errorHandler = failures.handler
        Item.create(in: undoable, id: 1, title: "one")
        database.close()
        #expect(undoable.undo() == false)
        #expect(failures.errors.map { $0 as? SQLiteDatabaseError } == [.closed])
        #expect(undoable.canUndo)
        #expect(throws: SQLiteDatabaseError.closed) { try undoable.performUndo() }
        #expect(undoable.canUndo)
    }
}

/// Collects errors handed to an error handler of any error type.
final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [any Error] = []

    var errors: [any Error] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var handler: @Sendable (any Error) -> Void {
        { [self] error in
            lock.lock()
            stored.append(error)
            lock.unlock()
        }
    }
}
