import Foundation
import GRDBSQLite
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Another process — the `sqlite3` shell in `BEGIN EXCLUSIVE` — holds the file's write lock
/// until it is told to end its transaction.
private final class LockHoldingProcess {
    let process: ChildProcess
    private let input: FileHandle

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `sqlite3` shell on the `PATH`, or `nil`.
    static var shell: URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("sqlite3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    init(file: String) throws {
        guard let shell = Self.shell else {
            throw Failure(description: "the test needs the sqlite3 shell as the other process (apt-get install sqlite3)")
        }
        process = try ChildProcess(shell.path, [file], input: .pipe)
        guard let input = process.input else { throw Failure(description: "no pipe to the sqlite3 process") }
        self.input = input
        try input.write(contentsOf: Data("BEGIN EXCLUSIVE;\n".utf8))
        // Held once a connection of this process cannot take the write lock itself.
        let deadline = Date().addingTimeInterval(60)
        while !Self.isWriteLocked(file) {
            guard process.isRunning, Date() < deadline else {
                release()
                throw Failure(description: "the sqlite3 process did not take the write lock within 60 s (running: \(process.isRunning))")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Whether another connection holds the write lock: `BEGIN IMMEDIATE` is refused at once.
    static func isWriteLocked(_ file: String) -> Bool {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(file, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close(handle)
            return false
        }
        defer { sqlite3_close(handle) }
        sqlite3_busy_timeout(handle, 0)
        let status = sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil)
        if status == SQLITE_OK { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        return status & 0xFF == SQLITE_BUSY
    }

    /// Ends the transaction (writing nothing) and the process; kills it if it does not end.
    func release() {
        try? input.write(contentsOf: Data("ROLLBACK;\n".utf8))
        try? input.close()
        _ = try? process.wait(timeout: 10)
    }

    deinit { if process.isRunning { release() } }
}

/// The README's "a file another process keeps locked longer than `Options.busyTimeout`",
/// with a real second process holding the lock (the other test uses a second connection of
/// this process).
@Suite("SQLiteDatabase: a file another process keeps locked")
struct ProcessLockTests {

    @Test("while another process holds the write lock: a batch throws .sqlite(SQLITE_BUSY), a plain write reports it and the value stays; once released, nothing stored is lost and writes go in")
    func lockedByAnotherProcess() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let log = ErrorLog()
        let database = try SQLiteDatabase(path: file, options: .init(busyTimeout: 0.2, errorHandler: log.handler))
        defer { database.close() }
        for id in 1 ... 20 { Item.create(in: database, id: id, title: "stored \(id)", count: id) }

        let holder = try LockHoldingProcess(file: file)
        defer { holder.release() }
        let error = #expect(throws: SQLiteDatabaseError.self) {
            try database.batch {
                database.get(id: 1, of: Item.self)?.title = "blocked"
                Item.create(in: database, id: 21, title: "blocked", count: 21)
            }
        }
        guard case .sqlite(let code, let message) = error else {
            Issue.record("not SQLite's busy: \(String(describing: error))")
            return
        }
        #expect(code & 0xFF == SQLITE_BUSY, "SQLite error \(code): \(message)")
        #expect(error?.localizedDescription.hasPrefix("The database is locked by another process") == true)

        database.get(id: 2, of: Item.self)?.title = "blocked too"
        #expect(log.errors.count == 1, "\(log.errors)")
        #expect(log.errors.first?.sqliteCode.map { $0 & 0xFF } == SQLITE_BUSY)
        // Reads go on (WAL): the values are the stored ones.
        #expect(database.get(id: 1, of: Item.self)?.title == "stored 1")
        #expect(database.get(id: 2, of: Item.self)?.title == "stored 2")
        #expect(database.get(id: 21, of: Item.self) == nil)

        holder.release()
        #expect(!LockHoldingProcess.isWriteLocked(file))
        database.get(id: 2, of: Item.self)?.title = "after"
        #expect(log.errors.count == 1, "\(log.errors)")

        let reopened = try SQLiteDatabase(path: file)
        defer { reopened.close() }
        #expect(reopened.all(of: Item.self).count == 20)
        #expect(reopened.get(id: 1, of: Item.self)?.title == "stored 1")
        #expect(reopened.get(id: 2, of: Item.self)?.title == "after")
        #expect(reopened.get(id: 20, of: Item.self)?.count == 20)
    }
}
