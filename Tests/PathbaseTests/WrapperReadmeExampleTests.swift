#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif
import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// The README's "Wrappers compose" and ObservedDatabase examples, compiled and checked.
// Model ids 2210–2219.

final class LoggingDatabase<Base: Database>: DatabaseWrapper {
    let base: Base
    init(wrapping base: Base) { self.base = base }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        print("set", path)
        base.set(value, for: path)
    }
}
extension LoggingDatabase: HistoryDatabase where Base: HistoryDatabase {}
extension LoggingDatabase: BatchDatabase where Base: BatchDatabase {}

@Model(id: 2210)
private final class WrapperReadmeNote {
    @Property(id: 1)
    var text: String
}

private struct WrapperReadmeFailure: Error {}

@Suite("README: wrappers")
struct WrapperReadmeExampleTests {

    @Test("The documented LoggingDatabase keeps SQLite's batches, history and queries in SQL, and none over a plain database")
    func loggingDatabase() throws {
        let sqlite = SQLiteTestFiles.makeDatabase(path: nil)
        let logging = LoggingDatabase(wrapping: sqlite)
        let note = WrapperReadmeNote.create(in: logging, id: 1, text: "a")
        #expect(throws: WrapperReadmeFailure.self) {
            try logging.batch {
                note.text = "b"
                throw WrapperReadmeFailure()
            }
        }
        #expect(note.text == "a")
        note.text = "c"
        #expect(logging.history(of: note.path(of: .text), as: String.self).map(\.value) == ["a", "c"])
        let before = sqlite.queriesAnsweredInSQL
        #expect(logging.fetch(QueryDescriptor<WrapperReadmeNote>(where: \.text == "c")).map(\.id) == [1])
        #expect(sqlite.queriesAnsweredInSQL == before + 1)

        let plain = LoggingDatabase(wrapping: InMemoryDatabase())
        #expect(!(plain as Any is any HistoryDatabase))
        #expect(!(plain as Any is any BatchDatabase))
    }

    @Test("The documented ObservedDatabase: undo notifies, the ObservableDatabase shares observers, views of the past")
    func observedDatabase() throws {
        let path = SQLiteTestFiles.newPath()
        let (observed, undoable, environment, lastWeek) = try makeDocumentedDatabases(path: path)
        let note = WrapperReadmeNote.create(in: undoable, id: 1, text: "draft")
        var notified = 0
        let subscription = WrapperReadmeNote(database: environment, id: 1).objectWillChange.sink { notified += 1 }
        note.text = "final"
        undoable.undo()
        #expect(note.text == "draft")
        #expect(notified == 2)
        #expect(lastWeek.all(of: WrapperReadmeNote.self).isEmpty)
        #expect(observed.records(at: note.path(of: .text)).count == 3)
        subscription.cancel()
    }

    private func makeDocumentedDatabases(path: String) throws -> (ObservedDatabase<SQLiteDatabase>, UndoableDatabase<ObservedDatabase<SQLiteDatabase>>, ObservableDatabase, HistoryView) {
        let observed = ObservedDatabase(wrapping: try SQLiteDatabase(path: path))
        let undoable = UndoableDatabase(wrapping: observed) // undo notifies observers
        let environment = ObservableDatabase(observed) // for SwiftUI, same observers
        let lastWeek = observed.view(at: Date().addingTimeInterval(-7 * 86400))
        return (observed, undoable, environment, lastWeek)
    }
}
