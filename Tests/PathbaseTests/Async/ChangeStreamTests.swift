import Foundation
import Pathbase
import Testing

@Suite("Async: change streams")
struct ChangeStreamTests {

    @Test("A model's stream gets each write of its instances, in order")
    func modelStream() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        let stream = try database.changes(of: AsyncTrack.self)
        let track = AsyncTrack.create(in: database, id: 4, title: "a")
        track.plays = 2
        Counted.create(in: database, id: 1) // another model: not in the stream
        track.delete()
        var received: [InstanceChange<AsyncTrack>] = []
        for await change in stream {
            received.append(change)
            if change.isStatusChange && received.contains(where: { $0.property == 2 }) { break }
        }
        // create writes the status and the title; then plays; then the status again.
        #expect(received.first?.id == 4)
        #expect(received.map(\.property).contains(2))
        #expect(received.last == InstanceChange(id: 4, property: PropertyKey.instanceId))
        #expect(received.allSatisfy { $0.id == 4 })
    }

    @Test("An instance's stream gets only that instance's writes")
    func instanceStream() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        let first = AsyncTrack.create(in: database, id: 1, title: "first")
        let second = AsyncTrack.create(in: database, id: 2, title: "second")
        let stream = try database.changes(to: second)
        first.plays = 1
        second.plays = 7
        var iterator = stream.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change == InstanceChange(id: 2, property: 2))
    }

    @Test("A query's stream gives the current results, then the changed results")
    func queryStream() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        AsyncTrack.create(in: database, id: 1, title: "b", plays: 5)
        let played = QueryDescriptor<AsyncTrack>(filter: { $0.plays > 0 }, sortBy: { $0.title })
        var iterator = try database.results(of: played).makeAsyncIterator()
        #expect(await iterator.next() == [1])
        AsyncTrack.create(in: database, id: 2, title: "a", plays: 1)
        var latest = await iterator.next()
        while latest != [2, 1], let next = await iterator.next() { latest = next }
        #expect(latest == [2, 1])
    }

    @Test("Streams on a database nobody observes throw notObserved")
    func notObserved() {
        #expect(throws: ChangeStreamError.notObserved) { try InMemoryDatabase().changes(of: AsyncTrack.self) }
        #expect(throws: ChangeStreamError.notObserved) {
            try InMemoryDatabase().results(of: QueryDescriptor<AsyncTrack>())
        }
    }

    @Test("Cancelled streams leave no observer behind")
    func cancellationRemovesObservers() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        let track = AsyncTrack.create(in: database, id: 1, title: "t")
        #expect(database.observers.observerCount == 0)
        let started = StreamEventCounter()
        let typeChanges = try database.changes(of: AsyncTrack.self)
        let instanceChanges = try database.changes(to: track)
        let results = try database.results(of: QueryDescriptor<AsyncTrack>())
        let tasks = [
            Task { for await _ in typeChanges { started.increment() } },
            Task { for await _ in instanceChanges { started.increment() } },
            Task { for await _ in results { started.increment() } }
        ]
        #expect(database.observers.observerCount == 3)
        track.plays += 1
        #expect(await eventually { started.value >= 3 })
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        #expect(await eventually { database.observers.observerCount == 0 })
        // A released stream that was never iterated stops observing too.
        _ = try database.changes(of: AsyncTrack.self)
        _ = try database.results(of: QueryDescriptor<AsyncTrack>())
        #expect(await eventually { database.observers.observerCount == 0 })
    }

    @Test("Several tasks consume streams while several tasks write")
    func stress() async throws {
        let database = ObservedDatabase(wrapping: InMemoryDatabase())
        let writers = 4, writesPerWriter = 100
        for writer in 1 ... writers { AsyncTrack.create(in: database, id: writer, title: "w\(writer)") }
        // Breaking out of a loop does not end a stream; releasing it does: the streams live
        // in this scope only.
        try await consumeWhileWriting(database, writers: writers, writesPerWriter: writesPerWriter)
        #expect(await eventually { database.observers.observerCount == 0 })
    }

    private func consumeWhileWriting(_ database: ObservedDatabase<InMemoryDatabase>, writers: Int, writesPerWriter: Int) async throws {
        let streams = try (0 ..< 3).map { _ in try database.changes(of: AsyncTrack.self) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for stream in streams {
                group.addTask {
                    var count = 0
                    for await change in stream where !change.isStatusChange && change.property == 2 {
                        count += 1
                        if count == writers * writesPerWriter { break }
                    }
                    return count
                }
            }
            for writer in 1 ... writers {
                group.addTask {
                    try await database.write { db in
                        guard let track = db.get(id: writer, of: AsyncTrack.self) else { return }
                        for play in 1 ... writesPerWriter { track.plays = play }
                    }
                    return -1
                }
            }
            var counts: [Int] = []
            for try await count in group where count >= 0 { counts.append(count) }
            #expect(counts == Array(repeating: writers * writesPerWriter, count: streams.count))
        }
    }
}

@Model(id: 2601)
final class Counted {}

/// A thread-safe counter for tests.
final class StreamEventCounter: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
