import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// A merged property changed in place from several threads at once, and while records of
/// another replica are applied: `likes += 1` and `tags.insert(x)` are each one atomic change
/// (issue 51), so none is lost, on every thread-safe store alone and under each wrapper.
/// One case at a time, so that its threads really overlap.
@Suite("Merge policies: several threads", .serialized)
struct MergedWriteConcurrencyTests {

    static let threadCount = 4

    static func steps() throws -> Int {
        try StressSettings.count("PATHBASE_MERGE_STRESS_STEPS", default: 100)
    }

    @Test("threads incrementing one counter, inserting into one set and appending to one reference list lose nothing", arguments: DatabaseKind.threadSafeKinds)
    func threadsLoseNoIncrement(kind: DatabaseKind) async throws {
        let database = kind.make()
        let steps = try Self.steps()
        let post = MergedPost.create(in: database, id: 1, title: "shared")
        let others = (0 ..< Self.threadCount).map { MergedPost.create(in: database, id: 100 + $0, title: "other \($0)") }
        nonisolated(unsafe) let shared = post
        nonisolated(unsafe) let referenced = others
        let finished = await TestThread.run(count: Self.threadCount) { thread in
            for step in 0 ..< steps {
                shared.likes += 1
                shared.score -= 2
                if step % 4 == 0 { shared.tags.insert("t\(thread)-\(step)") }
                if step == 0 { shared.related.append(referenced[thread]) }
            }
        }
        #expect(finished, "a thread did not finish")
        #expect(post.likes == Self.threadCount * steps, "\(kind): increments lost")
        #expect(post.score == 10 - 2 * Self.threadCount * steps, "\(kind): decrements lost")
        #expect(post.tags.count == Self.threadCount * ((steps + 3) / 4), "\(kind): insertions lost")
        #expect(Set(post.related.map(\.id)) == Set(others.map(\.id)), "\(kind): appends lost")
    }

    @Test("threads fetching, incrementing and saving one struct of a Codable collection, each through its own handle, lose nothing", arguments: DatabaseKind.threadSafeKinds)
    func collectionSavesLoseNothing(kind: DatabaseKind) async throws {
        let database = kind.make()
        let steps = try Self.steps() / 4
        try database.mergedArticles().save(MergedArticle(id: 1))
        let handles = try (0 ..< Self.threadCount).map { _ in try database.mergedArticles() }
        let failures = Locked<[String]>([])
        let finished = await TestThread.run(count: Self.threadCount) { thread in
            do {
                for step in 0 ..< steps {
                    guard var article = try handles[thread].fetch(id: 1) else {
                        failures.withLock { $0.append("thread \(thread): the article is gone") }
                        return
                    }
                    article.likes += 1
                    article.tags.insert("t\(thread)-\(step)")
                    try handles[thread].save(article)
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(finished, "a thread did not finish")
        #expect(failures.current.isEmpty, "\(failures.current)")
        let article = try #require(try database.mergedArticles().fetch(id: 1))
        #expect(article.likes == Self.threadCount * steps, "\(kind): increments lost")
        #expect(article.tags.count == Self.threadCount * steps, "\(kind): insertions lost")
    }

    @Test(
        "a thread incrementing while another applies a second replica's increments (to the wrapper, or to the database it wraps): every increment of both counts",
        arguments: HistoryDatabaseKind.allCases, [false, true])
    func incrementsWhilePulling(kind: HistoryDatabaseKind, toBase: Bool) async throws {
        let steps = try Self.steps()
        let local = kind.make(), remote = kind.make()
        let mine = MergedPost.create(in: local, id: 1, title: "a")
        let theirs = MergedPost.create(in: remote, id: 1, title: "b")
        for step in 0 ..< steps {
            theirs.likes += 1
            theirs.tags.insert("remote \(step)")
        }
        // Every state the other replica wrote, applied one by one as pages would be.
        nonisolated(unsafe) let records = try MergeTransfer.records(of: remote, encoded: false)
        nonisolated(unsafe) let writer = mine
        // A replica made on the database under the wrapper applies pulled records there.
        nonisolated(unsafe) let target = toBase ? Self.base(of: local) : local
        let finished = await TestThread.run(count: 2) { thread in
            if thread == 0 {
                for step in 0 ..< steps {
                    writer.likes += 1
                    writer.tags.insert("local \(step)")
                }
            } else {
                for record in records { target.apply(record) }
            }
        }
        #expect(finished, "a thread did not finish")
        #expect(mine.likes == 2 * steps, "\(kind): \(mine.likes) of \(2 * steps)")
        #expect(mine.tags.count == 2 * steps, "\(kind): \(mine.tags.count) of \(2 * steps) elements")
        // The other replica reaches the same.
        for record in try MergeTransfer.records(of: local, encoded: false) { remote.apply(record) }
        #expect(theirs.likes == 2 * steps && theirs.tags == mine.tags)
    }

    /// The history database a wrapper wraps, or `database` itself.
    private static func base(of database: any HistoryDatabase) -> any HistoryDatabase {
        func unwrap<Wrapper: DatabaseWrapper>(_ wrapper: Wrapper) -> (any HistoryDatabase)? { wrapper.base as? any HistoryDatabase }
        return (database as? any DatabaseWrapper).flatMap { unwrap($0) } ?? database
    }
}
