import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// Export, import and check of a file that took part in a sync: the replica's bookkeeping
/// stays out of the export and out of the check's findings.
@Suite("pathbase export of a synced file")
struct SyncedFileExportTests {

    /// A transport that is never reached: making a `Replica` stores its bookkeeping.
    private struct Unreachable: SyncTransport {
        struct NoServer: Error {}
        func push(_ request: PushRequest) async throws -> PushResponse { throw NoServer() }
        func pull(_ request: PullRequest) async throws -> PullResponse { throw NoServer() }
    }

    /// A file with two instances of model 5 and a replica's bookkeeping.
    private static func makeReplicaFile(_ path: String) throws {
        let database = try SQLiteDatabase(path: path)
        _ = try Replica(database: database, transport: Unreachable())
        try database.batch {
            for instance in 1 ... 2 {
                database.set(InstanceStatus.created, for: .status(model: 5, instance: instance))
                database.set("name \(instance)", for: Path(model: 5, instance: instance, property: 1))
            }
        }
        database.close()
    }

    @Test("export of a replica's file leaves its bookkeeping out; import and check of the copy succeed; check of the original is ok")
    func exportImportCheck() throws {
        let directory = try TemporaryDirectory()
        try Self.makeReplicaFile(directory.file("synced.sqlite"))
        let check = try CommandRunner.run(["check", "synced.sqlite"], in: directory)
        #expect(check.status == 0, "\(check.output)\(check.errorOutput)")
        let export = try CommandRunner.run(["export", "synced.sqlite", "--out", "export.json"], in: directory)
        #expect(export.status == 0, "\(export.errorOutput)")
        #expect(export.output.contains("Exported 4 records"), "\(export.output)")
        let records = try RecordArchive.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("export.json"))))
        #expect(!records.contains { $0.path.model == Replica.stateModel })
        let imported = try CommandRunner.run(["import", "copy.sqlite", "export.json"], in: directory)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        let checkCopy = try CommandRunner.run(["check", "copy.sqlite"], in: directory)
        #expect(checkCopy.status == 0, "\(checkCopy.output)\(checkCopy.errorOutput)")
        // The same state, record for record.
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"), options: .init(readOnly: true))
        defer { copy.close() }
        #expect(RecordArchive.exportable(copy.records(after: nil)).map(\.path) == records.map(\.path))
        #expect(copy.get(Path(model: 5, instance: 2, property: 1)) as String? == "name 2")
    }

    @Test("exportRecords() of a replica's database leaves its bookkeeping out, and the export imports")
    func swiftExport() throws {
        let directory = try TemporaryDirectory()
        try Self.makeReplicaFile(directory.file("synced.sqlite"))
        let database = try SQLiteDatabase(path: directory.file("synced.sqlite"))
        defer { database.close() }
        let data = try database.exportRecords()
        let copy = InMemoryHistoryDatabase()
        try copy.importRecords(from: data)
        #expect(copy.get(Path(model: 5, instance: 1, property: 1)) as String? == "name 1")
    }
}
