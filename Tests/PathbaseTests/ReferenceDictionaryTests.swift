import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Model(id: 2620)
final class Wing {
    @Property(id: 1)
    var name: String

    @ReferenceDictionary(id: 2)
    var rooms: [String: Chamber]

    @ReferenceDictionary(id: 3)
    var byFloor: [Int: Chamber] = [:]
}

@Model(id: 2621)
final class Chamber {
    @Property(id: 1)
    var size: Int
}

@Suite("Dictionary relationships")
struct ReferenceDictionaryTests {

    @Test("A dictionary of references reads back by key, on every backend", arguments: DatabaseKind.backends)
    func roundTrip(kind: DatabaseKind) {
        let database = kind.make()
        let hall = Chamber.create(in: database, id: 1, size: 40)
        let study = Chamber.create(in: database, id: 2, size: 12)
        let wing = Wing.create(in: database, id: 1, name: "east", rooms: ["hall": hall, "study": study])
        wing.byFloor[2] = study
        let again: Wing? = database.get(id: 1)
        #expect(again?.rooms.mapValues(\.id) == ["hall": 1, "study": 2])
        #expect(again?.rooms["hall"]?.size == 40)
        #expect(again?.byFloor.mapValues(\.id) == [2: 2])
        #expect(Wing.create(in: database, id: 2, name: "empty").rooms.isEmpty)
    }

    @Test("A deleted target stays in the dictionary with its status, like list elements")
    func deletedTargets() {
        let database = InMemoryDatabase()
        let hall = Chamber.create(in: database, id: 1, size: 40)
        let wing = Wing.create(in: database, id: 1, name: "east", rooms: ["hall": hall])
        hall.delete()
        #expect(wing.rooms["hall"]?.status == .deleted)
        hall.insert()
        #expect(wing.rooms["hall"]?.status == .created)
        wing.deleteAndClearProperties()
        #expect(wing.rooms.isEmpty)
    }

    @Test("A dictionary survives reopening an SQLite file, and sync knows its stored type")
    func persistsAndSyncs() throws {
        let path = SQLiteTestFiles.newPath()
        do {
            let file = try SQLiteDatabase(path: path)
            let hall = Chamber.create(in: file, id: 1, size: 40)
            Wing.create(in: file, id: 1, name: "east", rooms: ["hall": hall])
        }
        let reopened = try SQLiteDatabase(path: path)
        let wing = try #require(reopened.get(id: 1, of: Wing.self))
        #expect(wing.rooms["hall"]?.size == 40)
        #expect(Wing._$propertyType(2).map(ObjectIdentifier.init) == ObjectIdentifier([String: InstanceKey].self))
        #expect(Wing._$propertyType(3).map(ObjectIdentifier.init) == ObjectIdentifier([Int: InstanceKey].self))
    }
}
