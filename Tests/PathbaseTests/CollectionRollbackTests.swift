import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// Saves and fetches inside a batch that rolls back: the structs they kept as bases for
/// later saves were never stored, and must not make a later save skip a field.
@Suite("Collections: bases kept inside a batch that rolls back")
struct CollectionRollbackTests {

    private struct Failure: Error {}

    /// Databases whose batches take their writes back when they throw.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, cachedSQLite, undoableInMemory, undoableSQLite
        var testDescription: String { rawValue }

        func make() throws -> any BatchDatabase {
            switch self {
            case .sqlite: try SQLiteDatabase()
            case .cachedSQLite: CachedDatabase(wrapping: try SQLiteDatabase(), cache: MaximumCountCache(maxCount: 100))
            case .undoableInMemory: UndoableDatabase(wrapping: InMemoryDatabase())
            case .undoableSQLite: UndoableDatabase(wrapping: try SQLiteDatabase())
            }
        }
    }

    private let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: ["math"])

    @Test("Saving again what a rolled-back batch saved stores it", arguments: Kind.allCases)
    func saveAgainAfterRollback(kind: Kind) throws {
        let database = try kind.make()
        let users = database.collection(CollectionUser.self)
        try users.save(ada)
        var renamed = ada
        renamed.name = "Augusta"
        #expect(throws: Failure.self) {
            try database.batch {
                try users.save(renamed)
                throw Failure()
            }
        }
        try users.save(renamed)
        #expect(try users.fetch(id: ada.id)?.name == "Augusta")
    }

    @Test("A struct fetched inside a rolled-back batch is no base: saving it stores it", arguments: Kind.allCases)
    func fetchedInsideRollback(kind: Kind) throws {
        let database = try kind.make()
        let users = database.collection(CollectionUser.self)
        let theirs = database.collection(CollectionUser.self)
        try users.save(ada)
        var copy: CollectionUser?
        #expect(throws: Failure.self) {
            try database.batch {
                var renamed = ada
                renamed.name = "Augusta"
                try theirs.save(renamed)
                copy = try users.fetch(id: ada.id)
                throw Failure()
            }
        }
        #expect(copy?.name == "Augusta")
        // The app saves the copy it got; the stored name is still "Ada".
        if let copy { try users.save(copy) }
        #expect(try users.fetch(id: ada.id)?.name == "Augusta")
    }

    @Test("Saving again in an editing context what discarded edits had saved stores it", arguments: [false, true])
    func saveAgainAfterDiscard(onSQLite: Bool) throws {
        let database: any Database = onSQLite ? try SQLiteDatabase() : InMemoryDatabase()
        try database.collection(CollectionUser.self).save(ada)
        let context = database.createEditingContext()
        let users = context.collection(CollectionUser.self)
        var renamed = ada
        renamed.name = "Augusta"
        try users.save(renamed)
        context.discardChanges()
        try users.save(renamed)
        #expect(try users.fetch(id: ada.id)?.name == "Augusta")
        context.commitChanges()
        #expect(try database.collection(CollectionUser.self).fetch(id: ada.id)?.name == "Augusta")
    }

    @Test("A nested batch that rolls back inside one that commits: saving its struct again stores it", arguments: Kind.allCases)
    func saveAgainAfterNestedRollback(kind: Kind) throws {
        let database = try kind.make()
        let users = database.collection(CollectionUser.self)
        try users.save(ada)
        var renamed = ada
        renamed.name = "Augusta"
        try database.batch {
            #expect(throws: Failure.self) {
                try database.batch {
                    try users.save(renamed)
                    throw Failure()
                }
            }
            try users.save(renamed)
        }
        #expect(try users.fetch(id: ada.id)?.name == "Augusta")
    }

    @Test("Saves inside a batch that commits still keep a stale copy from overwriting a field changed elsewhere", arguments: Kind.allCases)
    func committedBatchKeepsBases(kind: Kind) throws {
        let database = try kind.make()
        let mine = database.collection(CollectionUser.self)
        try database.batch { try mine.save(ada) }
        let theirs = database.collection(CollectionUser.self)
        var renamed = ada
        renamed.name = "Augusta"
        try theirs.save(renamed)
        var copy = ada
        copy.age = 37
        try mine.save(copy)
        let stored = try mine.fetch(id: ada.id)
        #expect(stored?.name == "Augusta")
        #expect(stored?.age == 37)
    }

    @Test("An id handed out in a batch that rolled back is not handed out again, nor after reopening once its struct is stored", arguments: Kind.allCases)
    func generatedIdsAfterRollback(kind: Kind) throws {
        let database = try kind.make()
        let nodes = database.collection(CollectionNode.self, name: "nodes")
        // The counter and the replica number are stored before the batch.
        try nodes.save(CollectionNode(id: try nodes.nextId(), title: "zeroth"))
        var first: CollectionNode?
        #expect(throws: Failure.self) {
            try database.batch {
                let node = CollectionNode(id: try nodes.nextId(), title: "first")
                first = node
                try nodes.save(node)
                throw Failure()
            }
        }
        guard let first else {
            Issue.record("no id")
            return
        }
        // The app still holds its struct, asks for another id, then saves both.
        let second = CollectionNode(id: try nodes.nextId(), title: "second")
        #expect(second.id != first.id)
        try nodes.save([first, second])
        #expect(try nodes.fetch(id: first.id)?.title == "first")
        #expect(try nodes.fetch(id: second.id)?.title == "second")
    }

    @Test("After reopening a file, ids of stored structs are skipped even when the counter was rolled back")
    func generatedIdsAfterReopening() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-ids-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var held: CollectionNode?
        do {
            let database = try SQLiteDatabase(path: path)
            let nodes = database.collection(CollectionNode.self, name: "nodes")
            try nodes.save(CollectionNode(id: try nodes.nextId(), title: "zeroth"))
            #expect(throws: Failure.self) {
                try database.batch {
                    held = CollectionNode(id: try nodes.nextId(), title: "held")
                    throw Failure()
                }
            }
            if let held { try nodes.save(held) }
            database.close()
        }
        let database = try SQLiteDatabase(path: path)
        let nodes = database.collection(CollectionNode.self, name: "nodes")
        let next = try nodes.nextId()
        #expect(next != held?.id)
        try nodes.save(CollectionNode(id: next, title: "next"))
        #expect(try nodes.fetch(id: held?.id ?? -1)?.title == "held")
    }
}
