import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// README: `pathbase inspect` and `pathbase history` "open the file read-only and never write
/// to it": its bytes and date stay, and no record goes to its `-wal`. SQLite itself makes an
/// empty `-wal` and a `-shm` (its shared-memory index, where readers take a read mark) beside
/// a file that lacks them, as any reader of a WAL file does. A file of an older storage format
/// is refused rather than upgraded; a file that keeps no history is read like any other.
@Suite("pathbase inspect and history: read-only, on every kind of file")
struct ReadOnlyInspectionTests {

    private static let model: ModelKey = 5

    /// Instances 1 and 2 of model 5, each with a name; instance 1 renamed.
    private static func fill(_ database: SQLiteDatabase) throws {
        try database.batch {
            for instance in 1 ... 2 {
                database.set(InstanceStatus.created, for: .status(model: model, instance: instance))
                database.set("name \(instance)", for: Path(model: model, instance: instance, property: 1))
            }
            database.set("renamed", for: Path(model: model, instance: 1, property: 1))
        }
    }

    /// A file's bytes and modification date, or `nil` when it does not exist.
    private struct FileState: Equatable {
        let bytes: Data
        let modified: Date?

        static func of(_ path: String) -> FileState? {
            guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            return FileState(bytes: bytes, modified: modified)
        }
    }

    private static func states(_ path: String) -> [String: FileState?] {
        ["": FileState.of(path), "-wal": FileState.of(path + "-wal"), "-shm": FileState.of(path + "-shm")]
    }

    private static let readCommands: [[String]] = [
        ["inspect", "people.sqlite"],
        ["inspect", "people.sqlite", "--model", "5", "--instance", "1"],
        ["history", "people.sqlite", "--model", "5", "--instance", "1"]
    ]

    @Test("a closed file: inspect and history leave it byte-identical with its date; a -wal SQLite makes beside it stays empty")
    func closedFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("people.sqlite")
        let database = try SQLiteDatabase(path: path)
        try Self.fill(database)
        database.close()
        let before = Self.states(path)
        #expect(before["-wal"] == .some(nil) && before["-shm"] == .some(nil), "closing left the WAL behind")
        // Modification dates have a resolution of whole seconds on some file systems.
        Thread.sleep(forTimeInterval: 1.1)
        for arguments in Self.readCommands {
            let result = try CommandRunner.run(arguments, in: directory)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
            let after = Self.states(path)
            #expect(after[""] == before[""], "\(arguments) changed the file")
            let wal = after["-wal"] ?? nil
            #expect(wal?.bytes.isEmpty ?? true, "\(arguments) wrote \(wal?.bytes.count ?? 0) bytes to the -wal")
        }
    }

    @Test("a file another connection holds open, its last writes still in the -wal: inspect and history read them and change neither -wal, -shm nor the file")
    func fileWithWriteAheadLog() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("people.sqlite")
        let writer = try SQLiteDatabase(path: path)
        defer { writer.close() }
        try Self.fill(writer)
        // Well below the checkpoint size: the records stay in the -wal.
        let before = Self.states(path)
        let wal = try #require(before["-wal"] ?? nil, "no -wal while the writer is open")
        #expect(!wal.bytes.isEmpty)
        #expect(before["-shm"] ?? nil != nil, "no -shm while the writer is open")
        // Modification dates have a resolution of whole seconds on some file systems.
        Thread.sleep(forTimeInterval: 1.1)

        let summary = try CommandRunner.run(["inspect", "people.sqlite"], in: directory)
        #expect(summary.status == 0, "\(summary.errorOutput)")
        #expect(summary.output.contains("5  2  0"), "\(summary.output)")
        let history = try CommandRunner.run(["history", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(history.status == 0, "\(history.errorOutput)")
        #expect(history.output.split(separator: "\n").last?.hasSuffix("property 1 = \"renamed\"") == true, "\(history.output)")
        let instance = try CommandRunner.run(["inspect", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(instance.output.contains("1  \"renamed\""), "\(instance.output)")

        let after = Self.states(path)
        #expect(after[""] == before[""], "the file changed")
        #expect(after["-wal"] == before["-wal"], "the -wal changed")
        // The -shm keeps its size; readers take read marks in it (SQLite's locking).
        #expect((after["-shm"] ?? nil)?.bytes.count == (before["-shm"] ?? nil)?.bytes.count)
    }

    @Test("a file that keeps no history: inspect, history, export and check read its current values and leave it as it was")
    func withoutHistory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("people.sqlite")
        let database = try SQLiteDatabase(path: path, options: .init(keepsHistory: false))
        try Self.fill(database)
        database.close()
        let before = Self.states(path)

        let summary = try CommandRunner.run(["inspect", "people.sqlite"], in: directory)
        #expect(summary.status == 0, "\(summary.errorOutput)")
        #expect(summary.output.contains("people.sqlite: current values only, 1 model"), "\(summary.output)")
        #expect(summary.output.contains("5  2  0"), "\(summary.output)")
        let instance = try CommandRunner.run(["inspect", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(instance.status == 0 && instance.output.contains("1  \"renamed\""), "\(instance.output)\(instance.errorOutput)")

        let history = try CommandRunner.run(["history", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(history.status == 0, "\(history.errorOutput)")
        let lines = history.output.split(separator: "\n")
        #expect(lines.first == "History of model 5, instance 1 (current values only: the file keeps no history):")
        // The status and the current name; the first name is gone.
        #expect(lines.count == 3, "\(history.output)")
        #expect(lines.last?.hasSuffix("property 1 = \"renamed\"") == true, "\(history.output)")
        #expect(!history.output.contains("name 1"))

        let check = try CommandRunner.run(["check", "people.sqlite"], in: directory)
        #expect(check.status == 0 && check.output.hasPrefix("people.sqlite: ok"), "\(check.output)\(check.errorOutput)")

        let exported = try CommandRunner.run(["export", "people.sqlite", "--out", "backup.json"], in: directory)
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output == "Exported 4 records from people.sqlite to backup.json.\n")
        #expect(Self.states(path)[""] == before[""], "a read changed the file")

        let imported = try CommandRunner.run(["import", "copy.sqlite", "backup.json"], in: directory)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"), options: .init(readOnly: true))
        defer { copy.close() }
        #expect(copy.get(Path(model: Self.model, instance: 1, property: 1)) as String? == "renamed")
        #expect(copy.get(Path(model: Self.model, instance: 2, property: 1)) as String? == "name 2")
    }

    @Test("a file of an older storage format: inspect and history refuse it in one line naming the format, and leave it as it was")
    func olderFormat() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("people.sqlite")
        let database = try SQLiteDatabase(path: path)
        try Self.fill(database)
        database.close()
        // SQLite keeps PRAGMA user_version, Pathbase's format version, big-endian at byte 60
        // of the header: one less is what a file of the previous format says.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let format = bytes[60 ..< 64].reduce(0) { $0 << 8 | Int($1) }
        #expect(format > 1)
        let older = format - 1
        bytes.replaceSubrange(60 ..< 64, with: [UInt8(older >> 24 & 0xFF), UInt8(older >> 16 & 0xFF), UInt8(older >> 8 & 0xFF), UInt8(older & 0xFF)])
        try bytes.write(to: URL(fileURLWithPath: path))
        let before = Self.states(path)

        for arguments in Self.readCommands {
            let result = try CommandRunner.run(arguments, in: directory)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.output.isEmpty, "\(arguments): \(result.output)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.hasPrefix("error: "), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("older storage format \(older)"), "\(result.errorOutput)")
            #expect(Self.states(path)[""] == before[""], "\(arguments) changed the file")
        }
    }
}
