import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

private struct Note: Codable, Identifiable, Equatable {
    var id: String
    var title: String
    var pinned: Bool
    var tags: [String]
}

@Suite("Codable collections sync through a server like models do")
struct CollectionServerSyncTests {

    @Test("two SQLite replicas save, edit different fields and delete structs offline, sync over HTTP, and read the same collection")
    func collectionsConverge() async throws {
        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let phoneFile = try SQLiteDatabase(path: ServerTestFiles.newPath())
            let laptopFile = try SQLiteDatabase(path: ServerTestFiles.newPath())
            let phone = try Replica(database: phoneFile, transport: HTTPSyncTransport(server: url, token: token))
            let laptop = try Replica(database: laptopFile, transport: HTTPSyncTransport(server: url, token: token))
            let phoneNotes = phoneFile.collection(Note.self, name: "notes")
            let laptopNotes = laptopFile.collection(Note.self, name: "notes")

            try phoneNotes.save([
                Note(id: "a", title: "Groceries", pinned: false, tags: ["home"]),
                Note(id: "b", title: "Draft", pinned: false, tags: [])
            ])
            try await phone.sync()
            try await laptop.sync()
            #expect(try laptopNotes.fetch(id: "a") == Note(id: "a", title: "Groceries", pinned: false, tags: ["home"]))

            // Offline: each edits another field of the same struct; the laptop deletes "b"
            // and adds "c".
            var onPhone = try #require(try phoneNotes.fetch(id: "a"))
            onPhone.title = "Groceries for Sunday"
            try phoneNotes.save(onPhone)
            var onLaptop = try #require(try laptopNotes.fetch(id: "a"))
            onLaptop.pinned = true
            try laptopNotes.save(onLaptop)
            try laptopNotes.delete(id: "b")
            try laptopNotes.save(Note(id: "c", title: "Ideas", pinned: false, tags: ["work"]))

            try await phone.sync()
            try await laptop.sync()
            try await phone.sync()

            let expected = [
                Note(id: "a", title: "Groceries for Sunday", pinned: true, tags: ["home"]),
                Note(id: "c", title: "Ideas", pinned: false, tags: ["work"])
            ]
            #expect(try phoneNotes.fetch().sorted { $0.id < $1.id } == expected)
            #expect(try laptopNotes.fetch().sorted { $0.id < $1.id } == expected)
            #expect(try phoneNotes.fetch(where: \.pinned == true).map(\.id) == ["a"])
            #expect(phone.pendingRecords().isEmpty && laptop.pendingRecords().isEmpty)
        }
    }
}
