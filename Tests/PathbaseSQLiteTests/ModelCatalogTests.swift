import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// Model ids 2900–2909 in this file.

@Model(id: 2900)
final class CatalogShelf {
    @Property(id: 1) var label: String
    @Property(id: 2) var sizes: [Int]
    @Reference(id: 3) var favourite: CatalogVolume?
    @ReferenceList(id: 4) var volumes: [CatalogVolume]
    @ReferenceDictionary(id: 5) var byTopic: [String: CatalogVolume]
}

@Model(id: 2901)
final class CatalogVolume {
    @Property(id: 1) var title: String
}

/// Version 1 of an app's note type: a title and a body.
enum CatalogVersion1 {
    @Model(id: 2902)
    final class CatalogNote {
        @Property(id: 1) var title: String
        @Property(id: 2) var body: String
    }
}

/// Version 2 of the same type (same name and model id, used in another session of the
/// file): the body removed, tags added.
enum CatalogVersion2 {
    @Model(id: 2902)
    final class CatalogNote {
        @Property(id: 1) var title: String
        @Property(id: 3) var tags: [String]
    }
}

/// The catalog of `@Model` types an `SQLiteDatabase` file records for tools.
@Suite("Model catalog of a file")
struct ModelCatalogTests {

    private static let descriptionModel: ModelKey = 0x3FFF_FF02

    /// The file's records of the model catalog.
    private static func catalogRecords(_ database: SQLiteDatabase) -> [Record] {
        database.records(after: nil).filter { $0.path.model == descriptionModel }
    }

    @Test("the first create records the type's name, its properties' names, kinds, types and reference targets")
    func recordsDescription() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        defer { database.close() }
        #expect(database.modelDescription(of: CatalogShelf.modelId) == nil)
        CatalogShelf.create(in: database, id: 1, label: "top")
        let description = try #require(database.modelDescription(of: CatalogShelf.modelId))
        #expect(description.name == "CatalogShelf")
        #expect(
            description.properties == [
                .init(id: 1, name: "label", kind: .property, type: "String"),
                .init(id: 2, name: "sizes", kind: .property, type: "[Int]"),
                .init(id: 3, name: "favourite", kind: .reference, target: CatalogVolume.modelId),
                .init(id: 4, name: "volumes", kind: .referenceList, target: CatalogVolume.modelId),
                .init(id: 5, name: "byTopic", kind: .referenceDictionary, target: CatalogVolume.modelId)
            ])
        #expect(description.propertyName(4) == "volumes")
        #expect(description.propertyName(PropertyKey.instanceId) == "status")
        // Only the type created: the target is described when it is created itself.
        #expect(database.modelDescription(of: CatalogVolume.modelId) == nil)
        let _: CatalogVolume = database.getOrCreate(id: 7)
        #expect(database.modelDescription(of: CatalogVolume.modelId)?.name == "CatalogVolume")
        let names = database.recordedNames(of: CatalogShelf.modelId)
        #expect(names.label(of: CatalogShelf.modelId) == "2900 (CatalogShelf)")
        #expect(names.propertyName(3) == "favourite")
        #expect(names.propertyName(99) == nil)
    }

    @Test("recording twice writes nothing the second time: another create, and a reopened file")
    func recordsOnce() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            CatalogShelf.create(in: database, id: 1)
            #expect(Self.catalogRecords(database).count == 1)
            let before = database.records(after: nil).count
            database.create(id: 2, of: CatalogShelf.self)
            // The second create writes its status, nothing else.
            #expect(database.records(after: nil).count == before + 1)
            database.close()
        }
        for session in 0 ..< 3 {
            let database = try SQLiteDatabase(path: path)
            let before = database.records(after: nil).count
            database.create(id: 10 + session, of: CatalogShelf.self)
            #expect(database.records(after: nil).count == before + 1, "session \(session)")
            #expect(Self.catalogRecords(database).count == 1, "session \(session)")
            database.close()
        }
    }

    @Test("a new version of a type adds its properties and keeps the removed ones; the older version then writes nothing")
    func versions() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            CatalogVersion1.CatalogNote.create(in: database, id: 1, title: "a", body: "b")
            database.close()
        }
        do {
            let database = try SQLiteDatabase(path: path)
            CatalogVersion2.CatalogNote.create(in: database, id: 2, title: "c", tags: ["d"])
            let description = try #require(database.modelDescription(of: 2902))
            #expect(description.name == "CatalogNote")
            #expect(description.properties.map(\.name) == ["title", "body", "tags"])
            #expect(Self.catalogRecords(database).count == 2)
            database.close()
        }
        do {
            let database = try SQLiteDatabase(path: path)
            CatalogVersion1.CatalogNote.create(in: database, id: 3)
            // Version 1 says nothing the catalog lacks: no record.
            #expect(Self.catalogRecords(database).count == 2)
            #expect(database.modelDescription(of: 2902)?.properties.map(\.name) == ["title", "body", "tags"])
            database.close()
        }
    }

    @Test("reads record nothing; neither does an in-memory database, nor a file opened read-only")
    func onlyCreatesInWritableFiles() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            #expect(database.all(of: CatalogShelf.self).isEmpty)
            #expect(database.get(id: 1, of: CatalogShelf.self) == nil)
            #expect(database.active(id: 1, of: CatalogShelf.self) == nil)
            #expect(database.records(after: nil).isEmpty)
            database.close()
        }
        let memory = try SQLiteDatabase()
        CatalogShelf.create(in: memory, id: 1)
        #expect(memory.modelDescription(of: CatalogShelf.modelId) == nil)
        #expect(memory.records(after: nil).allSatisfy { $0.path.model == CatalogShelf.modelId })
        let errors = ErrorLog()
        let readOnly = try SQLiteDatabase(path: path, options: .init(readOnly: true, errorHandler: errors.handler))
        defer { readOnly.close() }
        readOnly.create(id: 1, of: CatalogShelf.self)
        #expect(readOnly.modelDescription(of: CatalogShelf.modelId) == nil)
        // The create itself is refused, as any write to a read-only file; nothing else was tried.
        #expect(errors.errors.count == 1, "\(errors.errors)")
    }

    @Test("through wrappers and editing contexts the description goes to the file, outside undo")
    func throughWrappers() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file())
        defer { database.close() }
        let undoable = UndoableDatabase(wrapping: ObservableDatabase(wrapping: database), depth: 10)
        let _: CatalogVolume = undoable.create(id: 1)
        #expect(database.modelDescription(of: CatalogVolume.modelId)?.name == "CatalogVolume")
        #expect(undoable.undo())
        #expect(database.modelDescription(of: CatalogVolume.modelId)?.name == "CatalogVolume")
        let context = database.createEditingContext()
        let _: CatalogShelf = context.create(id: 1)
        context.discardChanges()
        #expect(database.modelDescription(of: CatalogShelf.modelId)?.name == "CatalogShelf")
    }

    @Test("the catalog goes through export and import")
    func exportImport() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("first.sqlite"))
        defer { database.close() }
        CatalogShelf.create(in: database, id: 1, label: "top")
        let copy = try SQLiteDatabase(path: directory.file("copy.sqlite"))
        defer { copy.close() }
        try copy.importRecords(from: database.exportRecords())
        #expect(copy.modelDescription(of: CatalogShelf.modelId) == database.modelDescription(of: CatalogShelf.modelId))
        #expect(copy.modelDescription(of: CatalogShelf.modelId)?.properties.count == 5)
    }
}
