import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// The outbox rule through a real `pathbase serve`: every record written locally — before a
/// `Replica` existed, by another process, in any session — is pushed exactly once; records
/// pulled are not pushed back; records imported from another replica's export are pushed.
@Suite("Outbox: every local write reaches the server", .serialized)
struct OutboxTests {

    private static let model: ModelKey = 5

    /// Writes `count` instances of model 5 starting at `first`, each its own transaction.
    private static func write(_ database: SQLiteDatabase, from first: Int, count: Int) {
        for instance in first ..< first + count {
            database.set(InstanceStatus.created, for: .status(model: model, instance: instance))
            database.set("name \(instance)", for: Path(model: model, instance: instance, property: 1))
        }
    }

    /// The file's records that are data (not a replica's bookkeeping).
    private static func dataRecords(_ database: SQLiteDatabase) -> [Record] {
        database.records(after: nil).filter { $0.path.model != Replica.stateModel }
    }

    private static func keys(_ records: [Record]) -> [SyncRecord.Key] {
        records.map { SyncRecord.Key(path: $0.path, timestamp: $0.timestamp) }.sorted()
    }

    /// Syncs `file` once through the server.
    private static func sync(_ file: String, _ server: ServeRunner) async throws -> (SyncReport, pending: Int) {
        let database = try SQLiteDatabase(path: file)
        defer { database.close() }
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: server.url, token: server.token))
        let report = try await replica.sync()
        return (report, replica.pendingRecords().count)
    }

    /// A second replica pulls everything; it must hold exactly the records of `expected`
    /// (every one once), and the first must have nothing pending.
    private static func expectSecondReplicaHasAll(of file: String, in directory: TemporaryDirectory, server: ServeRunner, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let second = directory.file("second-\(UUID().uuidString).sqlite")
        _ = try await sync(second, server)
        let first = try SQLiteDatabase(path: file)
        defer { first.close() }
        let other = try SQLiteDatabase(path: second)
        defer { other.close() }
        let expected = keys(dataRecords(first))
        let got = keys(dataRecords(other))
        #expect(!expected.isEmpty, sourceLocation: sourceLocation)
        #expect(got == expected, "the second replica has \(got.count) records, the first \(expected.count)", sourceLocation: sourceLocation)
        let replica = try Replica(database: first, transport: HTTPSyncTransport(server: server.url, token: server.token))
        #expect(replica.pendingRecords().isEmpty, "\(replica.pendingRecords().prefix(5))", sourceLocation: sourceLocation)
    }

    @Test("Writes made before the Replica existed, with the file closed and reopened between, are pending and pushed")
    func writesBeforeReplica() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        let file = directory.file("first.sqlite")
        for session in 0 ..< 3 {
            let database = try SQLiteDatabase(path: file)
            Self.write(database, from: session * 10, count: 5)
            database.close()
        }
        let database = try SQLiteDatabase(path: file)
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: server.url, token: server.token))
        #expect(replica.pendingRecords().count == 30)
        database.close()
        let (report, pending) = try await Self.sync(file, server)
        #expect(report.pushed == 30)
        #expect(pending == 0)
        try await Self.expectSecondReplicaHasAll(of: file, in: directory, server: server)
        #expect(server.stop() == 0)
    }

    @Test("pathbase status counts the writes made before any sync, and sync pushes them")
    func statusCountsEarlierWrites() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        let demo = try await CommandRunner.run(["demo", "--path", "demo.sqlite"], in: directory)
        #expect(demo.status == 0)
        let before = try await CommandRunner.run(["status", "demo.sqlite"], in: directory)
        #expect(before.status == 0)
        #expect(!before.output.contains("pending: 0\n"), "\(before.output)")
        let sync = try await CommandRunner.run(["sync", "demo.sqlite", "--server", server.url.absoluteString, "--token", server.token], in: directory)
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(!sync.output.contains("pushed 0"), "\(sync.output)")
        let after = try await CommandRunner.run(["status", "demo.sqlite"], in: directory)
        #expect(after.output.contains("pending: 0\n"), "\(after.output)")
        try await Self.expectSecondReplicaHasAll(of: directory.file("demo.sqlite"), in: directory, server: server)
    }

    @Test("Two processes writing one file while one of them syncs: every record pushed once, no two timestamps equal")
    func twoProcesses() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        let file = directory.file("shared.sqlite")
        let database = try SQLiteDatabase(path: file)
        let replica = try Replica(database: database, transport: HTTPSyncTransport(server: server.url, token: server.token))
        // The other process: `pathbase demo` into the same file, again and again.
        guard let executable = CommandRunner.executable else { throw CommandRunner.NotBuilt() }
        let other = Task.detached { () throws -> [Int32] in
            var statuses: [Int32] = []
            for _ in 0 ..< 6 {
                statuses.append(try ChildProcess.run(executable.path, ["demo", "--path", file]).status)
            }
            return statuses
        }
        for round in 0 ..< 6 {
            Self.write(database, from: 100 + round * 10, count: 5)
            try await replica.sync()
        }
        #expect(try await other.value.allSatisfy { $0 == 0 })
        try await replica.sync()
        #expect(replica.pendingRecords().isEmpty)
        // Every locally stamped record has its own timestamp, whichever process wrote it.
        let stamps = Self.dataRecords(database).map(\.timestamp)
        #expect(Set(stamps).count == stamps.count, "equal timestamps from two processes")
        #expect(Set(stamps.map(\.replica)).count == 1, "one replica id for the file")
        database.close()
        try await Self.expectSecondReplicaHasAll(of: file, in: directory, server: server)
    }

    @Test("A Replica created, dropped and recreated over several opens: everything pushed once, one writer id")
    func replicaRecreated() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        let file = directory.file("first.sqlite")
        var pushed = 0
        for session in 0 ..< 4 {
            let database = try SQLiteDatabase(path: file)
            if session % 2 == 0 {
                Self.write(database, from: session * 10, count: 3)
                database.close()
                continue
            }
            let replica = try Replica(database: database, transport: HTTPSyncTransport(server: server.url, token: server.token))
            Self.write(database, from: session * 10, count: 3)
            pushed += try await replica.sync().pushed
            #expect(replica.pendingRecords().isEmpty)
            database.close()
        }
        #expect(pushed == 24, "each record pushed once")
        let database = try SQLiteDatabase(path: file)
        let writers: [UInt32]? = database.get(Path(model: Replica.stateModel, instance: 0, property: 2))
        #expect(writers?.count == 1, "\(writers ?? [])")
        database.close()
        try await Self.expectSecondReplicaHasAll(of: file, in: directory, server: server)
    }

    @Test("A file imported from another's export is a new replica: it pushes the imported records the server lacks under its own id, and pulls the original's later records")
    func importedCopy() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        let original = directory.file("original.sqlite")
        let database = try SQLiteDatabase(path: original)
        Self.write(database, from: 1, count: 4)
        let originalId = database.clock.replica
        database.close()
        // Exported before it ever synced: the server has none of it.
        #expect(try await CommandRunner.run(["export", "original.sqlite", "--out", "export.json"], in: directory).status == 0)
        #expect(try await CommandRunner.run(["import", "copy.sqlite", "export.json"], in: directory).status == 0)
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"))
        #expect(copy.clock.replica != originalId)
        let replica = try Replica(database: copy, transport: HTTPSyncTransport(server: server.url, token: server.token))
        #expect(replica.id != originalId)
        #expect(replica.pendingRecords().count == 8)
        let report = try await replica.sync()
        #expect(report.pushed == 8)
        #expect(replica.pendingRecords().isEmpty)
        copy.close()
        try await Self.expectSecondReplicaHasAll(of: directory.file("copy.sqlite"), in: directory, server: server)
        // The original syncs later: its records are on the server already (acknowledged,
        // not duplicated), and it writes more, which the copy pulls.
        let again = try SQLiteDatabase(path: original)
        Self.write(again, from: 50, count: 2)
        again.close()
        _ = try await Self.sync(original, server)
        let (pulled, _) = try await Self.sync(directory.file("copy.sqlite"), server)
        #expect(pulled.pulled == 4)
        try await Self.expectSecondReplicaHasAll(of: original, in: directory, server: server)
    }
}
