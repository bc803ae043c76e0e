import Pathbase
import Testing

// Model ids 300–349.

@Model(id: 300)
final class Folder {
    @Property(id: 1) var name: String
    @Reference(id: 2) var parent: Folder?
    @Reference(id: 3) var pinned: Memo!
    @Reference(id: 4) var archive: Memo?
}

@Model(id: 301)
final class Memo {
    @Property(id: 1) var text: String
}

@Suite("References")
struct ReferenceTests {

    @Test("An optional reference reads nil until set, then the referenced instance", arguments: DatabaseKind.allCases)
    func optionalReference(kind: DatabaseKind) {
        let database = kind.make()
        let folder: Folder = database.create(id: 1)
        let memo: Memo = database.create(id: 10)
        memo.text = "Hello"
        #expect(folder.archive == nil)

        folder.archive = memo
        #expect(folder.archive == memo)
        #expect(folder.archive?.id == 10)
        #expect(folder.archive?.text == "Hello")

        folder.archive = nil
        #expect(folder.archive == nil)
        #expect(memo.status == .created)
    }

    @Test("Writing through a reference changes the referenced instance", arguments: DatabaseKind.allCases)
    func writeThroughReference(kind: DatabaseKind) {
        let database = kind.make()
        let folder: Folder = database.create(id: 1)
        let memo = database.create(id: 10, of: Memo.self)
        folder.archive = memo
        folder.archive!.text = "Changed through the folder"
        #expect(memo.text == "Changed through the folder")
    }

    @Test("An implicitly unwrapped reference works like an optional one", arguments: DatabaseKind.allCases)
    func implicitlyUnwrappedReference(kind: DatabaseKind) {
        let database = kind.make()
        let folder: Folder = database.create(id: 1)
        #expect(folder.pinned == nil)
        let memo: Memo = database.create(id: 11)
        memo.text = "Pinned"
        folder.pinned = memo
        let text: String = folder.pinned.text
        #expect(text == "Pinned")
        folder.pinned.text = "Edited"
        #expect(memo.text == "Edited")
        folder.pinned = nil
        #expect(folder.pinned == nil)
    }

    @Test("A model can reference its own type, also itself", arguments: DatabaseKind.allCases)
    func selfReference(kind: DatabaseKind) {
        let database = kind.make()
        let root = Folder.create(in: database, id: 1, name: "root")
        let child = Folder.create(in: database, id: 2, name: "child", parent: root)
        #expect(child.parent?.name == "root")
        #expect(child.parent?.parent == nil)
        root.parent = root
        #expect(root.parent?.parent?.name == "root")
    }

    @Test("A reference to a deleted instance reads with status .deleted", arguments: DatabaseKind.allCases)
    func referenceToDeleted(kind: DatabaseKind) {
        let database = kind.make()
        let folder: Folder = database.create(id: 1)
        let memo: Memo = database.create(id: 10)
        memo.text = "Still here"
        folder.archive = memo
        memo.delete()

        #expect(folder.archive != nil)
        #expect(folder.archive?.status == .deleted)
        #expect(folder.archive?.text == "Still here")

        memo.insert()
        #expect(folder.archive?.status == .created)
    }

    @Test("Deleting the referencing instance leaves the referenced one alone", arguments: DatabaseKind.allCases)
    func deletingReferrer(kind: DatabaseKind) {
        let database = kind.make()
        let folder: Folder = database.create(id: 1)
        let memo: Memo = database.create(id: 10)
        folder.archive = memo
        folder.delete()
        #expect(memo.status == .created)
        #expect(folder.archive == memo)
    }
}
