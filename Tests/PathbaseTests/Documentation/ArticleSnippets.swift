// swift-format-ignore-file
import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// The Swift blocks of the DocC articles in Sources/Pathbase/Pathbase.docc, each article's in
// one function (top-level declarations first), with checks of what the articles print.
// ArticleSnippetTests checks that every block appears here verbatim and runs the functions.

// BEGIN MARKDOWN SNIPPETS
@Model(id: 101)
final class Guide {
    @Property(id: 1)
    var title: String

    @Property(id: 2)
    var pages: Int = 1

    @Reference(id: 3)
    var sequel: Guide?

    @ReferenceList(id: 4)
    var related: [Guide]
}

@Model(id: 102)
final class Shelf {
    @Property(id: 1)
    var label: String

    @ReferenceList(id: 2)
    var guides: [Guide]

    @ReferenceDictionary(id: 3)
    var byTopic: [String: Guide]
}

struct Novel: Codable, Identifiable {
    var id: UUID
    var title: String
    var year: Int?
}

enum Shade: String, Codable {
    case light, dark
}

extension Shade: Defaultable {
    static let defaultValue = Shade.light
}

enum ArticleSnippets {

    static func gettingStarted() {
        let database = InMemoryDatabase()
        let first = Guide.create(in: database, id: 1, title: "Basics")
        let second: Guide = database.create(id: 2)
        second.title = "Advanced"
        second.pages += 10
        first.sequel = second
        first.related = [second]

        let fetched: Guide? = database.get(id: 1)
        print(fetched?.sequel?.title ?? "")           // "Advanced"
        print(database.all(of: Guide.self).count)      // 2

        second.delete()                                // marked deleted, values kept
        second.insert()                                // restored

        #expect(fetched?.sequel?.title == "Advanced")
        #expect(second.status == .created && second.pages == 11)
    }

    /// Compiled, not run: it writes guides.sqlite in the current folder.
    static func gettingStartedFile() throws {
        let file = try SQLiteDatabase(path: "guides.sqlite")
        let guide = Guide.create(in: file, id: 1, title: "Basics")
        try file.batch {
            guide.pages = 12
            guide.related = [Guide.create(in: file, id: 2, title: "Advanced")]
        }

    }

    static func modelsAndCollections() throws {
        let database = InMemoryDatabase()
        let shelf = Shelf.create(in: database, id: 1, label: "Kitchen", guides: [], byTopic: [:])
        let guide = Guide.create(in: database, id: 1, title: "Bread")
        shelf.guides = [guide]
        shelf.byTopic["baking"] = guide
        guide.delete()
        print(shelf.guides.first?.status == .deleted)  // true: the list keeps the deleted guide
        let active = database.all(of: Guide.self)      // active instances only: none
        print(active.isEmpty)

        #expect(shelf.guides.first?.status == .deleted && active.isEmpty)
        #expect(shelf.byTopic["baking"]?.title == "Bread")

        let novels = database.collection(Novel.self, name: "novels", indexes: [\.year])
        let dune = Novel(id: UUID(), title: "Dune", year: 1965)
        try novels.save(dune)
        try novels.save([Novel(id: UUID(), title: "Solaris", year: 1961), Novel(id: UUID(), title: "Draft", year: nil)])
        let sixties = try novels.fetch(where: \.year >= 1960 && \.year < 1970, sortedBy: \.title)
        print(sixties.map(\.title))                   // ["Dune", "Solaris"]
        try novels.delete(id: dune.id)
        print(try novels.count())                       // 2

        #expect(sixties.map(\.title) == ["Dune", "Solaris"])
        #expect(try novels.count() == 2)
    }

    static func storage() throws {
        let file = try SQLiteDatabase(location: .temporary)
        let guide = Guide.create(in: file, id: 1, title: "Batches")
        do {
            try file.batch {
                guide.pages = 99
                throw CancellationError()          // nothing of the batch is stored
            }
        } catch {
            print(guide.pages)                      // 1
        }

        #expect(guide.pages == 1)

        let ledger = try SQLiteDatabase(path: NSTemporaryDirectory() + "ledger-\(UUID()).sqlite",
                                        options: .init(synchronization: .full))
        ledger.close()
    }

    static func historyAndUndo() throws {
        let history = InMemoryHistoryDatabase()
        let guide = Guide.create(in: history, id: 1, title: "First title")
        let before = Date()
        guide.title = "Second title"

        let view = history.view(at: before)
        let old: Guide? = view.get(id: 1)
        print(old?.title ?? "")                          // "First title"
        view.moveView(to: Date())
        print(old?.title ?? "")                          // "Second title"

        for change in guide.history(of: .title, as: String.self) {
            print(change.timestamp, change.value)         // oldest first
        }

        #expect(old?.title == "Second title")
        #expect(guide.history(of: .title, as: String.self).map(\.value) == ["First title", "Second title"])

        let context = history.createEditingContext()
        let draft: Guide = context.create(id: 2)
        draft.title = "Draft"
        print(history.all(of: Guide.self).count)         // 1: the draft is not in the database yet
        context.commitChanges()
        print(history.all(of: Guide.self).count)         // 2

        #expect(history.all(of: Guide.self).count == 2)

        let undoable = UndoableDatabase(wrapping: history, depth: 50)
        let edited: Guide = undoable.create(id: 3)
        edited.pages = 40
        undoable.undo()
        print(edited.pages)                               // 1
        undoable.redo()
        print(edited.pages)                               // 40

        #expect(edited.pages == 40)

        let backup = try history.exportRecords()
        let copy = InMemoryHistoryDatabase()
        try copy.importRecords(from: backup)
        print(copy.all(of: Guide.self).count)             // 3
        try history.prune(before: Date().addingTimeInterval(-30 * 86_400))

        #expect(copy.all(of: Guide.self).count == 3)
    }
}
// END MARKDOWN SNIPPETS
