import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// The `pathbase` tool run as a process: output, exit codes, and files left as they were.
@Suite("pathbase command line")
struct CommandLineTests {

    private static let model: ModelKey = 5

    /// A file with instances 1 and 2 of model 5 created, 3 deleted; each has a name.
    private static func makeFile(_ name: String, in directory: TemporaryDirectory, keepsHistory: Bool = true) throws {
        let database = try SQLiteDatabase(path: directory.file(name), options: .init(keepsHistory: keepsHistory))
        try database.batch {
            for instance in 1 ... 3 {
                database.set(InstanceStatus.created, for: .status(model: model, instance: instance))
                database.set("name \(instance)", for: Path(model: model, instance: instance, property: 1))
            }
            database.set("renamed", for: Path(model: model, instance: 1, property: 1))
            database.set(InstanceStatus.deleted, for: .status(model: model, instance: 3))
        }
        database.close()
    }

    /// A failure is one line on standard error, starting with "error:", and nothing on
    /// standard output.
    private func expectOneLineFailure(_ result: CommandResult, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit code", sourceLocation: sourceLocation)
        #expect(result.errorLines.count == 1, "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.hasPrefix("error: "), "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(result.errorOutput.contains(text), "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(!result.errorOutput.contains("Domain="), sourceLocation: sourceLocation)
        #expect(result.output.isEmpty, "\(result.output)", sourceLocation: sourceLocation)
    }

    // MARK: inspect

    @Test("inspect lists models and counts, reads an instance, and leaves the file byte-identical")
    func inspect() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let before = try directory.contents("people.sqlite")
        let summary = try CommandRunner.run(["inspect", "people.sqlite"], in: directory)
        #expect(summary.status == 0)
        #expect(summary.errorOutput.isEmpty)
        #expect(summary.output.contains("people.sqlite: keeps history, 1 model"))
        #expect(summary.output.contains("5  2  1"))
        let instance = try CommandRunner.run(["inspect", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(instance.status == 0)
        #expect(instance.output.contains("1  \"renamed\""))
        #expect(instance.output.contains("status  created"))
        #expect(try directory.contents("people.sqlite") == before)
    }

    @Test("inspect of a missing or empty file is one error line, exit 1, and creates or changes nothing")
    func inspectMissingOrEmpty() throws {
        let directory = try TemporaryDirectory()
        expectOneLineFailure(try CommandRunner.run(["inspect", "missing.sqlite"], in: directory), mentioning: "missing.sqlite: no such file")
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing.sqlite")))
        #expect(FileManager.default.createFile(atPath: directory.file("empty.sqlite"), contents: Data()))
        expectOneLineFailure(try CommandRunner.run(["inspect", "empty.sqlite"], in: directory), mentioning: "empty.sqlite is empty")
        #expect(try directory.contents("empty.sqlite").isEmpty)
        expectOneLineFailure(try CommandRunner.run(["history", "empty.sqlite", "--model", "1", "--instance", "1"], in: directory), mentioning: "empty.sqlite is empty")
        #expect(try directory.contents("empty.sqlite").isEmpty)
    }

    @Test("inspect and history of an instance that does not exist fail with one line")
    func missingInstance() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        expectOneLineFailure(try CommandRunner.run(["inspect", "people.sqlite", "--model", "5", "--instance", "99"], in: directory), mentioning: "model 5 has no instance 99")
        expectOneLineFailure(try CommandRunner.run(["history", "people.sqlite", "--model", "6", "--instance", "1"], in: directory), mentioning: "model 6 has no instance 1")
    }

    @Test("inspect of a file that is not a database is one readable line")
    func inspectNotADatabase() throws {
        let directory = try TemporaryDirectory()
        try Data("hello".utf8).write(to: URL(fileURLWithPath: directory.file("notes.txt")))
        expectOneLineFailure(try CommandRunner.run(["inspect", "notes.txt"], in: directory), mentioning: "is not an SQLite database")
        #expect(try directory.contents("notes.txt") == Data("hello".utf8))
    }

    // MARK: history

    @Test("history prints every record of an instance, oldest first, without writing")
    func history() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let before = try directory.contents("people.sqlite")
        let result = try CommandRunner.run(["history", "people.sqlite", "--model", "5", "--instance", "1"], in: directory)
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty)
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "History of model 5, instance 1:")
        #expect(lines.count == 4)
        #expect(lines.dropFirst().first?.hasSuffix("status = created") == true)
        #expect(lines.last?.hasSuffix("property 1 = \"renamed\"") == true)
        #expect(try directory.contents("people.sqlite") == before)
    }

    // MARK: check

    @Test("check of a sound file prints ok and exits 0, without writing")
    func checkSound() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let before = try directory.contents("people.sqlite")
        let result = try CommandRunner.run(["check", "people.sqlite"], in: directory)
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("people.sqlite: ok"))
        #expect(result.errorOutput.isEmpty)
        #expect(try directory.contents("people.sqlite") == before)
    }

    @Test("check reports a record whose path breaks the exchange contract and exits 1")
    func checkInvalidPath() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let database = try SQLiteDatabase(path: directory.file("people.sqlite"))
        // Written twice: the first record is in the history, the second is current.
        database.set("bad", for: Path(model: -4, instance: 1, property: 1))
        database.set("worse", for: Path(model: -4, instance: 1, property: 1))
        database.close()
        let result = try CommandRunner.run(["check", "people.sqlite"], in: directory)
        #expect(result.status == 1)
        #expect(result.output.contains("people.sqlite: 2 problems"))
        #expect(result.output.contains("current_values -4/1/1: a path outside the exchange contract"))
        #expect(result.output.contains("superseded_records -4/1/1: a path outside the exchange contract"))
    }

    @Test("check of a damaged file reports the damage and exits 1")
    func checkDamaged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("people.sqlite")
        let database = try SQLiteDatabase(path: path)
        try database.batch {
            for instance in 1 ... 2000 {
                database.set(String(repeating: "x", count: 100), for: Path(model: Self.model, instance: instance, property: 1))
            }
        }
        database.close()
        // Overwrite a b-tree page in the middle of the file.
        var bytes = try directory.contents("people.sqlite")
        let middle = bytes.count / 2 / 4096 * 4096
        for offset in middle ..< middle + 4096 { bytes[offset] = 0x55 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try CommandRunner.run(["check", "people.sqlite"], in: directory)
        #expect(result.status == 1)
        #expect(result.output.contains("problem") || result.output.contains("damaged"), "\(result.output)")
        #expect(!result.output.contains(": ok"))
        #expect(try directory.contents("people.sqlite") == bytes)
    }

    @Test("check of a missing file is one error line")
    func checkMissing() throws {
        let directory = try TemporaryDirectory()
        expectOneLineFailure(try CommandRunner.run(["check", "missing.sqlite"], in: directory), mentioning: "missing.sqlite: no such file")
    }

    // MARK: Codable collections

    /// A struct of an app that stores Codable collections.
    private struct Visit: Codable, Identifiable {
        var id: Int
        var place: String
        var nights: Int?
    }

    /// A file with the collection "visits": instances 1 and 2.
    private static func makeCollectionFile(_ name: String, in directory: TemporaryDirectory) throws -> ModelKey {
        let database = try SQLiteDatabase(path: directory.file(name))
        let visits = database.collection(Visit.self, name: "visits")
        try visits.save([Visit(id: 1, place: "Oslo", nights: 2), Visit(id: 2, place: "Lima", nights: nil)])
        database.close()
        return visits.modelKey
    }

    @Test("inspect, export and import list collections by name with their fields; an instance shows field names")
    func collectionsByName() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.makeCollectionFile("trips.sqlite", in: directory)
        let listing = "collection visits (model \(model)): id, nights, place\n"
        let summary = try CommandRunner.run(["inspect", "trips.sqlite"], in: directory)
        #expect(summary.status == 0)
        #expect(summary.output.hasSuffix(listing), "\(summary.output)")
        let instance = try CommandRunner.run(["inspect", "trips.sqlite", "--model", "\(model)", "--instance", "1"], in: directory)
        #expect(instance.status == 0)
        #expect(instance.output.hasPrefix("Model \(model) (collection visits), instance 1:"), "\(instance.output)")
        #expect(instance.output.contains("place  \"Oslo\""), "\(instance.output)")
        #expect(instance.output.contains("nights  2"), "\(instance.output)")
        let exported = try CommandRunner.run(["export", "trips.sqlite", "--out", "trips.json"], in: directory)
        #expect(exported.status == 0)
        #expect(exported.output.hasSuffix("to trips.json.\n" + listing), "\(exported.output)")
        let imported = try CommandRunner.run(["import", "copy.sqlite", "trips.json"], in: directory)
        #expect(imported.status == 0)
        #expect(imported.output.hasSuffix("into copy.sqlite.\n" + listing), "\(imported.output)")
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"))
        #expect(try copy.collection(Visit.self, name: "visits").fetch(id: 2)?.place == "Lima")
    }

    // MARK: export and import

    @Test("export then import rebuilds the records in a new file; silent progress when not on a terminal")
    func exportImport() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let before = try directory.contents("people.sqlite")
        let exported = try CommandRunner.run(["export", "people.sqlite", "--out", "backup.json"], in: directory)
        #expect(exported.status == 0)
        #expect(exported.output == "Exported 8 records from people.sqlite to backup.json.\n")
        #expect(exported.errorOutput.isEmpty)
        #expect(try directory.contents("people.sqlite") == before)
        let imported = try CommandRunner.run(["import", "copy.sqlite", "backup.json"], in: directory)
        #expect(imported.status == 0)
        #expect(imported.output == "Imported 8 records from backup.json into copy.sqlite.\n")
        #expect(imported.errorOutput.isEmpty)
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"))
        #expect(copy.get(Path(model: Self.model, instance: 1, property: 1)) as String? == "renamed")
        #expect(copy.records(after: nil).count == 8)
    }

    @Test("import and export show progress in place (\\r) when asked, as on a terminal")
    func progress() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let exported = try CommandRunner.run(["export", "people.sqlite", "--out", "backup.json"], environment: ["PATHBASE_PROGRESS": "1"], in: directory)
        #expect(exported.status == 0)
        #expect(exported.errorOutput == "\rExporting: 8 of 8 records (100%)\n")
        let imported = try CommandRunner.run(["import", "copy.sqlite", "backup.json"], environment: ["PATHBASE_PROGRESS": "1"], in: directory)
        #expect(imported.status == 0)
        #expect(imported.errorOutput == "\rImporting: 8 of 8 records (100%)\n")
    }

    @Test("import of a missing export is one readable line, not a Foundation error dump, and creates nothing")
    func importMissingFile() throws {
        let directory = try TemporaryDirectory()
        expectOneLineFailure(try CommandRunner.run(["import", "target.sqlite", "nothing.json"], in: directory), mentioning: "nothing.json: no such file")
        #expect(!FileManager.default.fileExists(atPath: directory.file("target.sqlite")))
    }

    @Test("import rejects a record with a negative model id, and imports nothing")
    func importNegativeModel() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile("people.sqlite", in: directory)
        let before = try directory.contents("people.sqlite")
        let document = """
            {"format":"pathbase-records","version":1,"records":[
            {"path":[5,10,1],"timestamp":[1000,0,1],"type":"String","value":"fine"},
            {"path":[-1,1,1],"timestamp":[1001,0,1],"type":"String","value":"bad"}]}
            """
        try Data(document.utf8).write(to: URL(fileURLWithPath: directory.file("bad.json")))
        expectOneLineFailure(try CommandRunner.run(["import", "people.sqlite", "bad.json"], in: directory), mentioning: "a negative model id (-1)")
        #expect(try directory.contents("people.sqlite") == before)
        expectOneLineFailure(try CommandRunner.run(["import", "new.sqlite", "bad.json"], in: directory), mentioning: "nothing was imported")
        #expect(!FileManager.default.fileExists(atPath: directory.file("new.sqlite")))
    }

    @Test("import of a damaged export is one readable line")
    func importMalformed() throws {
        let directory = try TemporaryDirectory()
        try Data("{\"format\":".utf8).write(to: URL(fileURLWithPath: directory.file("cut.json")))
        expectOneLineFailure(try CommandRunner.run(["import", "new.sqlite", "cut.json"], in: directory), mentioning: "Not a Pathbase export, or damaged")
        #expect(!FileManager.default.fileExists(atPath: directory.file("new.sqlite")))
    }

    @Test("A usage error exits non-zero with the usage on standard error")
    func usageError() throws {
        let directory = try TemporaryDirectory()
        let result = try CommandRunner.run(["inspect"], in: directory)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("Usage"))
        #expect(result.output.isEmpty)
    }

    @Test("serve refuses a --models list it cannot read, before creating the server file")
    func serveModelsValidation() throws {
        let directory = try TemporaryDirectory()
        for bad in ["1,x", "5-2", "-3", "1,,2"] {
            let result = try CommandRunner.run(["serve", "--database", "server.sqlite", "--port", "0", "--models", bad], in: directory)
            #expect(result.status != 0, "--models \(bad)")
            #expect(result.errorOutput.contains("--models"), "--models \(bad): \(result.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("server.sqlite")))
    }
}
