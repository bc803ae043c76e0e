import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

// Model ids 3100–3109 in this file.

@Model(id: 3100)
final class NamedAuthor {
    @Property(id: 1) var name: String
    @ReferenceList(id: 2) var books: [NamedBook]
}

@Model(id: 3101)
final class NamedBook {
    @Property(id: 1) var title: String
}

/// `pathbase inspect` and `pathbase history` show the names a file's catalog records for
/// its `@Model` types, ids where it records none; the catalog reaches a second replica
/// through a real `pathbase serve`.
@Suite("Model names in the tools", .serialized)
struct ModelNamesTests {

    /// A file with author 1 ("Ann", renamed "Ann Smith") who wrote book 1.
    private static func makeFile(_ path: String) throws {
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let book = NamedBook.create(in: database, id: 1, title: "Notes")
        let author = NamedAuthor.create(in: database, id: 1, name: "Ann", books: [book])
        author.name = "Ann Smith"
    }

    private static func lines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init)
    }

    @Test("inspect lists models by name and prints an instance's properties by name")
    func inspect() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile(directory.file("books.sqlite"))
        let listing = try CommandRunner.run(["inspect", "books.sqlite"], in: directory)
        #expect(listing.status == 0, "\(listing.errorOutput)")
        #expect(Self.lines(listing.output).contains("3100 (NamedAuthor)  1  0"), "\(listing.output)")
        #expect(Self.lines(listing.output).contains("3101 (NamedBook)  1  0"), "\(listing.output)")
        let instance = try CommandRunner.run(["inspect", "books.sqlite", "--model", "3100", "--instance", "1"], in: directory)
        #expect(instance.status == 0, "\(instance.errorOutput)")
        let lines = Self.lines(instance.output)
        #expect(lines.first == "Model 3100 (NamedAuthor), instance 1:")
        #expect(lines.contains { $0.hasPrefix("status  created") }, "\(instance.output)")
        #expect(lines.contains { $0.hasPrefix("name  \"Ann Smith\"") }, "\(instance.output)")
        #expect(lines.contains { $0.hasPrefix("books  [1]") }, "\(instance.output)")
    }

    @Test("history prints each write with the property's name")
    func history() throws {
        let directory = try TemporaryDirectory()
        try Self.makeFile(directory.file("books.sqlite"))
        let result = try CommandRunner.run(["history", "books.sqlite", "--model", "3100", "--instance", "1"], in: directory)
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = Self.lines(result.output)
        #expect(lines.first == "History of model 3100 (NamedAuthor), instance 1:")
        #expect(lines.contains { $0.hasSuffix("name = \"Ann\"") }, "\(result.output)")
        #expect(lines.contains { $0.hasSuffix("name = \"Ann Smith\"") }, "\(result.output)")
        #expect(lines.contains { $0.hasSuffix("status = created") }, "\(result.output)")
        #expect(!lines.contains { $0.contains("property 1") }, "\(result.output)")
    }

    @Test("a file written without the catalog shows ids, as before")
    func withoutCatalog() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("raw.sqlite"))
        database.set(InstanceStatus.created, for: .status(model: 3100, instance: 1))
        database.set("Ann", for: Path(model: 3100, instance: 1, property: 1))
        database.close()
        let listing = try CommandRunner.run(["inspect", "raw.sqlite"], in: directory)
        #expect(Self.lines(listing.output).contains("3100  1  0"), "\(listing.output)")
        let instance = try CommandRunner.run(["inspect", "raw.sqlite", "--model", "3100", "--instance", "1"], in: directory)
        #expect(Self.lines(instance.output).first == "Model 3100, instance 1:")
        #expect(Self.lines(instance.output).contains { $0.hasPrefix("1  \"Ann\"") }, "\(instance.output)")
        let history = try CommandRunner.run(["history", "raw.sqlite", "--model", "3100", "--instance", "1"], in: directory)
        #expect(Self.lines(history.output).first == "History of model 3100, instance 1:")
        #expect(Self.lines(history.output).contains { $0.hasSuffix("property 1 = \"Ann\"") }, "\(history.output)")
    }

    @Test("the catalog reaches a second replica through pathbase serve; the second's own create then writes no description")
    func syncsToSecondReplica() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServeRunner(in: directory)
        defer { _ = server.stop() }
        let first = directory.file("first.sqlite")
        try Self.makeFile(first)
        let transport = HTTPSyncTransport(server: server.url, token: server.token)
        do {
            let database = try SQLiteDatabase(path: first)
            defer { database.close() }
            try await Replica(database: database, transport: transport).sync()
        }
        let second = directory.file("second.sqlite")
        let database = try SQLiteDatabase(path: second)
        try await Replica(database: database, transport: transport).sync()
        let description = try #require(database.modelDescription(of: NamedAuthor.modelId))
        #expect(description == NamedAuthor._$description)
        #expect(database.modelDescription(of: NamedBook.modelId)?.name == "NamedBook")
        let catalog = { database.records(after: nil).filter { $0.path.model == 0x3FFF_FF02 }.count }
        #expect(catalog() == 2)
        NamedAuthor.create(in: database, id: 2, name: "Bo")
        #expect(catalog() == 2, "the pulled description already says everything")
        database.close()
        let inspect = try await CommandRunner.run(["inspect", "second.sqlite", "--model", "3100", "--instance", "1"], in: directory)
        #expect(Self.lines(inspect.output).first == "Model 3100 (NamedAuthor), instance 1:", "\(inspect.output)\(inspect.errorOutput)")
        #expect(Self.lines(inspect.output).contains { $0.hasPrefix("name  \"Ann Smith\"") }, "\(inspect.output)")
    }
}

/// Pathbase Studio's pages name `@Model` types and properties as the file's catalog records them.
@Suite("Model names in Pathbase Studio", .enabled(if: Curl.isInstalled))
struct StudioModelNamesTests {

    @Test("overview, table and instance pages show the recorded names; the catalog is no model of the list; a model without one shows ids")
    func pagesShowNames() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("named.sqlite")
        let database = try SQLiteDatabase(path: path)
        let book = NamedBook.create(in: database, id: 2, title: "Notes")
        NamedAuthor.create(in: database, id: 1, name: "Ann", books: [book])
        database.set(InstanceStatus.created, for: .status(model: 5, instance: 1))
        database.set("x", for: Path(model: 5, instance: 1, property: 1))
        database.close()
        let studio = try StudioNamesPages.start([path])
        defer { _ = studio.stop() }
        let overview = StudioNamesPages.table("models", in: try await StudioNamesPages.page(studio, "/"))
        #expect(overview.contains(">NamedAuthor (model 3100)</a>") && overview.contains("<td>name, books</td>"), "\(overview)")
        #expect(overview.contains(">NamedBook (model 3101)</a>"), "\(overview)")
        #expect(overview.contains(">model 5</a>"), "\(overview)")
        #expect(!overview.contains("\(ModelDescription.catalogModel)"), "the catalog is bookkeeping, not a model: \(overview)")
        let table = try await StudioNamesPages.page(studio, "/models/3100")
        #expect(table.contains("NamedAuthor (model 3100)"))
        let header = StudioNamesPages.table("instances", in: table)
        #expect(header.contains(">name</a>") && header.contains(">books</a>") && !header.contains("property 1"), "\(header)")
        let instance = StudioNamesPages.table("properties", in: try await StudioNamesPages.page(studio, "/models/3100/instances/1"))
        #expect(instance.contains("<tr id=\"property-1\"><th>name</th>") && instance.contains("<th>books</th>"), "\(instance)")
        let unnamed = StudioNamesPages.table("properties", in: try await StudioNamesPages.page(studio, "/models/5/instances/1"))
        #expect(unnamed.contains("<tr id=\"property-1\"><th>property 1</th>"), "\(unnamed)")
    }
}

/// A `pathbase studio` process and its pages, for this file's suite.
private enum StudioNamesPages {

    static func start(_ arguments: [String]) throws -> ServeProcess {
        try ServeProcess(arguments: ["studio"] + arguments + ["--port", "0"])
    }

    static func page(_ studio: ServeProcess, _ path: String) async throws -> String {
        let base = studio.url.absoluteString
        let answer = try await Curl.run(["--fail-with-body", (base.hasSuffix("/") ? String(base.dropLast()) : base) + path])
        #expect(answer.exitStatus == 0, "\(path): \(answer)")
        return answer.output
    }

    /// The part of a page between `<table id="ID"` and its end.
    static func table(_ id: String, in page: String) -> String {
        guard let start = page.range(of: "<table id=\"\(id)\"") else { return "" }
        let rest = page[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</table>")?.upperBound ?? rest.endIndex)])
    }
}
