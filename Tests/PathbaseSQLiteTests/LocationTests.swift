import Foundation
import Pathbase
@testable import PathbaseSQLite
import Testing

@Model(id: 2630)
final class LocatedNote {
    @Property(id: 1)
    var text: String
}

@Suite("SQLiteDatabase locations")
struct LocationTests {

    @Test("A temporary database is a real file, removed with its WAL files when closed")
    func temporaryRemovedOnClose() throws {
        let database = try SQLiteDatabase(location: .temporary)
        let path = try #require(database.path)
        LocatedNote.create(in: database, id: 1, text: "scratch")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(database.get(id: 1, of: LocatedNote.self)?.text == "scratch")
        database.close()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("A temporary database is removed when released, with its assets")
    func temporaryRemovedOnRelease() async throws {
        var database: SQLiteDatabase? = try SQLiteDatabase(location: .temporary)
        let path = try #require(database?.path)
        _ = try await database?.storeAsset(Data("x".utf8))
        #expect(FileManager.default.fileExists(atPath: path + ".assets"))
        database = nil
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".assets"))
    }

    @Test("The default location follows XDG_DATA_HOME, else ~/.local/share, on Linux")
    func defaultFolder() {
        #if !canImport(Darwin)
            let xdg = SQLiteDatabase.Location.applicationDataFolder(environment: ["XDG_DATA_HOME": "/data/home", "HOME": "/home/ann"])
            #expect(xdg.path == "/data/home")
            let fallback = SQLiteDatabase.Location.applicationDataFolder(environment: ["HOME": "/home/ann"])
            #expect(fallback.path == "/home/ann/.local/share")
            let relative = SQLiteDatabase.Location.applicationDataFolder(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/ann"])
            #expect(relative.path == "/home/ann/.local/share")
        #endif
        #expect(SQLiteDatabase.Location.applicationDefault.description.hasSuffix("/database.sqlite"))
    }

    @Test("A file location creates its missing folder and keeps the file")
    func fileLocation() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-location-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app/database.sqlite").path
        do {
            let database = try SQLiteDatabase(location: .file(path))
            LocatedNote.create(in: database, id: 1, text: "kept")
        }
        let reopened = try SQLiteDatabase(location: .file(path))
        #expect(reopened.get(id: 1, of: LocatedNote.self)?.text == "kept")
    }
}
