import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// Live results hear every write as it is made, also inside batches: when a batch throws
/// and the file takes its writes back, they must show the stored values again.
@Suite("Live queries and live collections after a batch that rolls back")
struct LiveRollbackTests {

    private struct Failure: Error {}

    struct Note: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var text: String
    }

    @Test("A live collection shows the stored structs again after a batch that threw", arguments: [false, true])
    func liveCollection(nested: Bool) throws {
        let database = ObservableDatabase(wrapping: try SQLiteDatabase())
        let notes = database.collection(Note.self)
        try notes.save([Note(id: 1, text: "kept"), Note(id: 2, text: "also kept")])
        let live = try notes.live(where: .all, sortedBy: [.ascending(\.id)])
        let failing = {
            try database.batch {
                try notes.save(Note(id: 1, text: "taken back"))
                try notes.save(Note(id: 3, text: "never stored"))
                try notes.delete(id: 2)
                throw Failure()
            }
        }
        if nested {
            try database.batch { () throws -> Void in
                #expect(throws: Failure.self) { try failing() }
            }
        } else {
            #expect(throws: Failure.self) { try failing() }
        }
        #expect(live.results == [Note(id: 1, text: "kept"), Note(id: 2, text: "also kept")])
        #expect(try notes.fetch() == live.results)
    }

    @Test("A live query shows the stored models again after a batch that threw")
    func liveQuery() throws {
        let database = ObservableDatabase(wrapping: try SQLiteDatabase())
        Item.create(in: database, id: 1, title: "kept", count: 1)
        let live = LiveQuery(QueryDescriptor<Item>(filter: { $0.count > 0 }, sortBy: { $0.id }), in: database)
        #expect(throws: Failure.self) {
            try database.batch {
                database.get(id: 1, of: Item.self)?.count = 0
                Item.create(in: database, id: 2, title: "never stored", count: 5)
                throw Failure()
            }
        }
        #expect(live.results.map(\.id) == [1])
        #expect(database.fetch(live.query).map(\.id) == [1])
    }

    @Test("The change stream hears the paths of a batch that threw again, after they were taken back")
    func changeStream() async throws {
        let database = ObservableDatabase(wrapping: try SQLiteDatabase())
        Item.create(in: database, id: 1, title: "kept", count: 1)
        let changes = database.changes
        let path = Path(model: Item.modelId, instance: 1, property: 2)
        #expect(throws: Failure.self) {
            try database.batch {
                database.set(7, for: path)
                throw Failure()
            }
        }
        database.set("after", for: Path(model: Item.modelId, instance: 1, property: 1))
        var heard: [Path] = []
        for await changed in changes {
            heard.append(changed)
            if changed.property == 1 { break }
        }
        #expect(heard == [path, path, Path(model: Item.modelId, instance: 1, property: 1)])
        #expect(database.get(path) as Int? == 1)
    }
}
