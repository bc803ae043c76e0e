import Foundation
import GRDBSQLite
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// A small tmpfs mounted for one test: a disk that really fills up (ENOSPC), unlike
/// `RLIMIT_FSIZE`, whose EFBIG SQLite reports as an I/O error. Mounting needs root (the
/// tests run as root here and in CI): without it the test fails with ``MountError``, it is
/// not skipped.
private final class TinyFilesystem {
    let path: String
    private var mounted = false

    struct MountError: Error, CustomStringConvertible {
        let description: String
    }

    init(sizeInKiB: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-full-disk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = Self.run("mount", ["-t", "tmpfs", "-o", "size=\(sizeInKiB)k", "tmpfs", path])
        guard result.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw MountError(
                description:
                    "a real full disk needs a tmpfs: `mount -t tmpfs` failed (status \(result.status), uid \(getuid()); run the tests as root): \(result.output)")
        }
        mounted = true
    }

    /// Unmounts (lazily if something still holds a file open) and removes the directory.
    func unmount() {
        guard mounted else { return }
        if Self.run("umount", [path]).status != 0 { _ = Self.run("umount", ["-l", path]) }
        mounted = false
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { unmount() }

    private static func run(_ command: String, _ arguments: [String]) -> (status: Int32, output: String) {
        do {
            let result = try ChildProcess.run("/usr/bin/env", [command] + arguments)
            return (result.status, result.output + result.errors)
        } catch {
            return (-1, "\(error)")
        }
    }
}

/// The README's "The disk is full" on a disk that is full: `SQLITE_FULL` from ENOSPC, the
/// batch that did not fit gone, everything committed before it intact once there is room.
@Suite("SQLiteDatabase on a really full disk (a tiny tmpfs)")
struct RealFullDiskTests {

    private static let batchSize = 8

    private func title(_ batch: Int, _ index: Int) -> String {
        "batch \(batch) item \(index) " + String(repeating: "x", count: 600)
    }

    @Test("writing until the tmpfs is full: the batch that does not fit throws .sqlite(SQLITE_FULL), a plain write reports it; after freeing space and reopening every earlier batch is intact")
    func diskFull() throws {
        let disk = try TinyFilesystem(sizeInKiB: 1024)
        defer { disk.unmount() }
        let file = disk.path + "/full.sqlite"
        // Room to free later: a file that takes a quarter of the disk.
        let filler = disk.path + "/filler"
        try Data(count: 256 * 1024).write(to: URL(fileURLWithPath: filler))

        let log = ErrorLog()
        var committed = 0
        var failure: SQLiteDatabaseError?
        do {
            let database = try SQLiteDatabase(path: file, options: .init(errorHandler: log.handler))
            defer { database.close() }
            for batch in 1 ... 2000 {
                do {
                    try database.batch {
                        for index in 0 ..< Self.batchSize {
                            Item.create(in: database, id: batch * 100 + index, title: title(batch, index), count: batch)
                        }
                    }
                    committed = batch
                } catch let error as SQLiteDatabaseError {
                    failure = error
                    break
                }
            }
            let error = try #require(failure, "the disk never filled: \(committed) batches went in")
            #expect(committed > 5, "the disk was full before anything went in")
            guard case .sqlite(let code, let message) = error else {
                Issue.record("not an SQLite failure: \(error)")
                return
            }
            #expect(code & 0xFF == SQLITE_FULL, "SQLite error \(code): \(message)")
            #expect(error.localizedDescription.hasPrefix("The disk is full: the change was not stored."), "\(error.localizedDescription)")
            // The failed batch is not visible, the last committed one is.
            #expect(database.get(id: (committed + 1) * 100, of: Item.self) == nil)
            #expect(database.get(id: committed * 100, of: Item.self)?.count == committed)

            // A plain write cannot throw: it goes to the error handler, the value stays.
            database.get(id: 100, of: Item.self)?.title = String(repeating: "y", count: 200_000)
            #expect(log.errors.last?.sqliteCode.map { $0 & 0xFF } == SQLITE_FULL, "\(log.errors)")
            #expect(database.get(id: 100, of: Item.self)?.title == title(1, 0))
        }

        // Room again: the file opens, recovers its WAL, and holds exactly the committed batches.
        try FileManager.default.removeItem(atPath: filler)
        let reopened = try SQLiteDatabase(path: file)
        defer { reopened.close() }
        let items = reopened.all(of: Item.self)
        #expect(items.count == committed * Self.batchSize, "\(items.count) items for \(committed) committed batches of \(Self.batchSize)")
        for batch in [1, committed / 2, committed] {
            for index in [0, Self.batchSize - 1] {
                #expect(reopened.get(id: batch * 100 + index, of: Item.self)?.title == title(batch, index))
            }
        }
        #expect(reopened.get(id: (committed + 1) * 100, of: Item.self) == nil, "the batch that failed came back")
        // And it takes writes again.
        Item.create(in: reopened, id: 1, title: "after", count: 0)
        #expect(reopened.get(id: 1, of: Item.self)?.title == "after")
    }
}
