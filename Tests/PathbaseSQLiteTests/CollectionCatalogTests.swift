import Foundation
@testable import Pathbase
@testable import PathbaseSQLite
import Testing

private struct Member: Codable, Identifiable {
    var id: Int
    var name: String
}

@Suite("SQLiteDatabase: a collection's queries check its catalog entry again after every change")
struct CollectionCatalogTests {

    private static func catalogName(of model: ModelKey) -> Path {
        Path(model: CollectionKeys.catalogModel, instance: model, property: CollectionKeys.catalogNameProperty)
    }

    @Test("A name written by this handle, or by another connection to the file, after queries found the catalog right: the next query reports the collision")
    func aCollisionWrittenAfterAQueryIsReported() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("collection-catalog-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path)
        let members = database.collection(Member.self, name: "members", indexes: [\.name])
        try members.save([Member(id: 1, name: "Ada"), Member(id: 2, name: "Grace")])
        #expect(try members.fetch(where: \.name == "Ada").map(\.id) == [1])
        #expect(try members.fetch(where: \.name == "Grace").map(\.id) == [2])

        // Another connection: its commit changes the file under this one.
        let other = try SQLiteDatabase(path: path)
        other.set("others", for: Self.catalogName(of: members.modelKey))
        #expect(throws: CollectionError.collectionNameCollision(name: "members", storedName: "others")) {
            try members.fetch(where: \.name == "Ada")
        }
        other.set("members", for: Self.catalogName(of: members.modelKey))
        other.close()
        #expect(try members.fetch(where: \.name == "Ada").map(\.id) == [1])

        // This handle, outside a collection.
        database.set("others", for: Self.catalogName(of: members.modelKey))
        #expect(throws: CollectionError.collectionNameCollision(name: "members", storedName: "others")) {
            try members.fetch()
        }
        database.close()
    }

    @Test("Inside one read, a query after a write of the name by the same transaction reports the collision")
    func aCollisionWrittenInsideABatchIsReported() throws {
        let database = try SQLiteDatabase()
        let members = database.collection(Member.self, name: "members")
        try members.save(Member(id: 1, name: "Ada"))
        try database.batch { () throws -> Void in
            #expect(try members.fetch(where: \.name == "Ada").count == 1)
            database.set("others", for: Self.catalogName(of: members.modelKey))
            #expect(throws: CollectionError.collectionNameCollision(name: "members", storedName: "others")) {
                try members.fetch(where: \.name == "Ada")
            }
        }
    }
}
