import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Several threads saving, fetching and generating ids in one collection at the same time.
///
/// Real threads (``TestThread``) that start together, on every backend and wrapper
/// that is safe to share between threads (``DatabaseKind/isThreadSafe``: all but the two
/// deliberately single-threaded hand-written databases), alone and under each wrapper. One case at a time, so
/// that its threads really overlap. `PATHBASE_COLLECTION_STRESS_STEPS` sets the steps per
/// thread.
@Suite("Codable collections: several threads", .serialized)
struct CollectionConcurrencyTests {

    static let threadCount = 4

    static func steps() throws -> Int {
        try StressSettings.count("PATHBASE_COLLECTION_STRESS_STEPS", default: 20)
    }

    @Test(arguments: DatabaseKind.threadSafeKinds)
    func generatedIdsSavesAndFetchesFromSeveralThreadsLoseNothing(kind: DatabaseKind) async throws {
        let database = kind.make()
        let steps = try Self.steps()
        // A handle per thread: the id counter is shared by the storage, not by the handle.
        let handles = (0 ..< Self.threadCount).map { _ in database.collection(CollectionNode.self) }
        let made = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: Self.threadCount) { thread in
            let nodes = handles[thread]
            var previous: Int?
            do {
                for step in 0 ..< steps {
                    let id = try nodes.nextId()
                    try nodes.save(CollectionNode(id: id, title: "t\(thread)s\(step)", next: previous))
                    if let previous, try nodes.fetch(id: previous)?.title != "t\(thread)s\(step - 1)" {
                        failures.withLock { $0.append("thread \(thread) lost node \(previous)") }
                    }
                    // Reads of the whole collection while others write: every struct whole.
                    if step % 5 == 0 {
                        for node in try nodes.fetch() where !node.title.hasPrefix("t") {
                            failures.withLock { $0.append("node \(node.id) read as \(node)") }
                        }
                    }
                    made.withLock { $0.append(id) }
                    previous = id
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(finished, "a thread did not finish")
        #expect(failures.current.isEmpty, "\(failures.current)")
        let ids = made.current
        #expect(ids.count == Self.threadCount * steps)
        #expect(Set(ids).count == ids.count, "a generated id was given twice")
        let nodes = database.collection(CollectionNode.self)
        #expect(try nodes.count() == ids.count)
        #expect(try Set(nodes.fetch().map(\.id)) == Set(ids))
    }

    @Test(arguments: DatabaseKind.threadSafeKinds)
    func handlesOnSeveralThreadsNeverGetTheSameId(kind: DatabaseKind) async throws {
        let database = kind.make()
        let count = try StressSettings.count("PATHBASE_COLLECTION_STRESS_IDS", default: 500)
        // Nothing but ids, from a handle per thread: the tightest race on the counter.
        let handles = (0 ..< Self.threadCount).map { _ in database.collection(CollectionNode.self) }
        let made = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: Self.threadCount) { thread in
            var ids: [Int] = []
            do {
                for _ in 0 ..< count { ids.append(try handles[thread].nextId()) }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
            made.withLock { $0 += ids }
        }
        #expect(finished, "a thread did not finish")
        #expect(failures.current.isEmpty, "\(failures.current)")
        let ids = made.current
        #expect(ids.count == Self.threadCount * count)
        #expect(Set(ids).count == ids.count, "\(ids.count - Set(ids).count) ids were given twice")
    }

    @Test(arguments: DatabaseKind.threadSafeKinds)
    func threadsUpdatingTheSameStructsLeaveEachWhole(kind: DatabaseKind) async throws {
        let database = kind.make()
        let steps = try Self.steps()
        let users = database.collection(CollectionUser.self)
        let originals = makeUsers(count: 8, seed: 14).map { user in
            var user = user
            user.tags = ["kept"]
            return user
        }
        try users.save(originals)
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: Self.threadCount) { thread in
            do {
                for step in 0 ..< steps {
                    let original = originals[(thread + step) % originals.count]
                    guard var user = try users.fetch(id: original.id) else {
                        failures.withLock { $0.append("\(original.id) missing") }
                        continue
                    }
                    user.name = "t\(thread)s\(step)"
                    user.age = step
                    try users.save(user)
                    for fetched in try users.fetch() where fetched.tags != ["kept"] {
                        failures.withLock { $0.append("\(fetched.id) lost its tags: \(fetched)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(finished, "a thread did not finish")
        #expect(failures.current.isEmpty, "\(failures.current)")
        let stored = try users.fetch()
        #expect(Set(stored.map(\.id)) == Set(originals.map(\.id)))
        for user in stored {
            // Each struct holds the name some thread wrote last, and its untouched tags.
            let step = user.name.split(separator: "s").last.flatMap { Int($0) }
            #expect(user.name.hasPrefix("t") && step != nil, "\(user)")
            #expect(user.tags == ["kept"])
        }
    }
}
