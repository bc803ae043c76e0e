import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("Async: repositories, collections and their change streams")
struct AsyncRepositoryTests {

    @Test("A collection's operations run from async code, on memory and SQLite", arguments: [false, true])
    func collectionOperations(onFile: Bool) async throws {
        let database = SQLiteTestFiles.makeDatabase(path: onFile ? SQLiteTestFiles.newPath() : nil)
        let users = database.collection(CollectionUser.self).async
        let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: ["math"])
        let kid = CollectionUser(id: UUID(), name: "Kid", age: 9, tags: [])
        try await users.save(ada)
        try await users.save(kid)
        #expect(try await users.count() == 2)
        #expect(try await users.fetch(id: ada.id) == ada)
        let adults = try await users.fetch(where: CollectionFilter { ($0.age ?? 0) >= 18 })
        #expect(adults == [ada])
        let sorted = try await users.perform { try $0.fetch(where: .all, sortedBy: \.name, descending: true) }
        #expect(sorted.map(\.name) == ["Kid", "Ada"])
        try await users.delete(id: kid.id)
        #expect(try await users.fetch() == [ada])
        // The same data through the synchronous collection.
        #expect(try database.collection(CollectionUser.self).count() == 1)
    }

    @Test("A cancelled task does not start a save")
    func cancelledSave() async throws {
        let users = InMemoryDatabase().collection(CollectionUser.self)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await users.async.save(CollectionUser(id: UUID(), name: "late", age: nil, tags: []))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try users.count() == 0)
    }

    @Test("Many tasks saving to one SQLite collection: every struct is kept")
    func concurrentSaves() async throws {
        let users = SQLiteTestFiles.makeDatabase(path: SQLiteTestFiles.newPath()).collection(CollectionUser.self).async
        let tasks = 6, savesPerTask = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< tasks {
                group.addTask {
                    for index in 0 ..< savesPerTask {
                        try await users.save(CollectionUser(id: UUID(), name: "t\(task)-\(index)", age: index, tags: []))
                        let count = try await users.count()
                        #expect(count >= 1 && count <= tasks * savesPerTask)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await users.count() == tasks * savesPerTask)
    }

    @Test("A collection's results stream gives the current results, then the changed ones")
    func collectionResultsStream() async throws {
        let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        let users = database.collection(CollectionUser.self)
        let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: [])
        try users.save(ada)
        var iterator = try users.results(where: \.age >= 18, sortedBy: [.ascending(\.name)]).makeAsyncIterator()
        #expect(await iterator.next()?.map(\.name) == ["Ada"])
        try users.save(CollectionUser(id: UUID(), name: "Aaron", age: 20, tags: []))
        try users.save(CollectionUser(id: UUID(), name: "Kid", age: 9, tags: []))
        var latest = await iterator.next()?.map(\.name)
        while latest != ["Aaron", "Ada"], let next = await iterator.next() { latest = next.map(\.name) }
        #expect(latest == ["Aaron", "Ada"])
    }

    @Test("A collection's results stream needs an observed database")
    func collectionStreamNotObserved() {
        let users = InMemoryDatabase().collection(CollectionUser.self)
        #expect(throws: ChangeStreamError.notObserved) { try users.results() }
    }

    @Test("A cancelled or released collection stream leaves no observer behind")
    func collectionStreamCancellation() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        let users = database.collection(CollectionUser.self)
        let stream = try users.results()
        let received = StreamEventCounter()
        let reader = Task { for await _ in stream { received.increment() } }
        #expect(await eventually { received.value >= 1 }) // the first results (only the newest wait)
        try users.save(CollectionUser(id: UUID(), name: "Ada", age: 36, tags: []))
        #expect(await eventually { received.value >= 2 }) // then the save
        #expect(database.observers.observerCount == 1)
        reader.cancel()
        await reader.value
        #expect(await eventually { database.observers.observerCount == 0 })
        _ = try users.results() // released without being read
        #expect(await eventually { database.observers.observerCount == 0 })
    }
}
