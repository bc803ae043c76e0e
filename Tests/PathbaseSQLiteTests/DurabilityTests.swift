import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import Testing

/// Crash safety and multi-process use of one file, with real child processes.
@Suite("SQLite durability: kill -9 during batches, two processes on one file", .serialized)
struct DurabilityTests {

    /// The `PathbaseCrashWriter` executable, built next to the test binary.
    private static var writer: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        return candidates
            .map { $0.appendingPathComponent("PathbaseCrashWriter") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-durability-\(UUID().uuidString).sqlite").path
    }

    private static func remove(_ file: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
    }

    private static func launch(_ writer: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = writer
        process.arguments = arguments
        try process.run()
        return process
    }

    /// Every instance in the file has all eleven values of its batch, or none.
    private static func checkBatchesComplete(in file: String) throws -> Int {
        let database = try SQLiteDatabase(path: file)
        defer { database.close() }
        var valuesPerInstance: [InstanceKey: Int] = [:]
        for record in database.records(after: nil) where record.path.model == 1 {
            valuesPerInstance[record.path.instance, default: 0] += 1
        }
        for (instance, count) in valuesPerInstance {
            #expect(count == 11, "instance \(instance) has \(count) of its 11 values: a batch was half-written")
            for property in 1 ... 10 {
                let value: Int? = database.get(Path(model: 1, instance: instance, property: property))
                #expect(value == instance)
            }
        }
        let created = database.all(model: 1) { instance, status in status == .created ? instance : nil }
        #expect(Set(created) == Set(valuesPerInstance.keys))
        return valuesPerInstance.count
    }

    @Test("A writer killed with SIGKILL at random moments, 100 times: every batch is whole or absent")
    func killedWriters() throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let file = Self.temporaryFile()
        defer { Self.remove(file) }
        var instances = 0
        for round in 0 ..< 100 {
            let process = try Self.launch(writer, [file, "\(round * 1_000_000)"])
            usleep(UInt32.random(in: 5_000 ... 60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            instances = try Self.checkBatchesComplete(in: file)
        }
        #expect(instances > 0, "no batch was ever committed: the writer never got going")
    }

    @Test("A writer committing editing contexts, killed with SIGKILL 30 times: every commit is whole or absent")
    func killedContextCommits() throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let file = Self.temporaryFile()
        defer { Self.remove(file) }
        for round in 0 ..< 30 {
            let process = try Self.launch(writer, [file, "\(round * 1_000_000)", "\(Int.max / 2)", "context"])
            usleep(UInt32.random(in: 5_000 ... 60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            _ = try Self.checkBatchesComplete(in: file)
        }
    }

    @Test("Two processes writing one file at once: no write lost, the file intact")
    func twoWriters() throws {
        let writer = try #require(Self.writer, "PathbaseCrashWriter was not built next to the tests")
        let file = Self.temporaryFile()
        defer { Self.remove(file) }
        // Create the file first, so that the two writers do not race to create the schema.
        try SQLiteDatabase(path: file).close()
        let first = try Self.launch(writer, [file, "0", "300"])
        let second = try Self.launch(writer, [file, "1000000", "300"])
        first.waitUntilExit()
        second.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(second.terminationStatus == 0)
        #expect(try Self.checkBatchesComplete(in: file) == 600)
        let integrity = try DatabaseQueue(path: file).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }
}
