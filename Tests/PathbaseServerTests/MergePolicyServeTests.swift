import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

// Model ids 5110–5119: merge policies through a server.

/// A Codable struct whose fields merge by policy (`collection(_:merge:)`).
private struct ServedArticle: Codable, Identifiable, Equatable {
    var id: String
    var title: String
    var likes: Int
    var tags: Set<String>
    var best: Int
}

@Model(id: 5110)
final class ServedPost {
    @Property(id: 1, merge: .counter)
    var likes: Int

    @Property(id: 2, merge: .max)
    var highestBid: Int

    @Property(id: 3)
    var title: String
}

/// Issue 51, merge policies, end to end: two replicas write concurrently and synchronize
/// through a real `pathbase serve`, which stores the states as opaque records.
@Suite("Merge policies through pathbase serve")
struct MergePolicyServeTests {

    @Test("two replicas increment and bid concurrently, sync, and both read the sum and the maximum", arguments: [StoreKind.sqlite, .postgres])
    func concurrentIncrements(kind: StoreKind) async throws {
        let pair = try await ServedReplicas(kind: kind)
        defer { pair.serve.kill() }
        let (file, first, second) = (pair.file, pair.first, pair.second)
        let (firstReplica, secondReplica) = (pair.firstReplica, pair.secondReplica)
        let a = ServedPost.create(in: first, id: 1, title: "first")
        let b = ServedPost.create(in: second, id: 1, title: "second")
        var expectedLikes = 0
        var expectedBid = 0
        // Rounds of concurrent writes on both replicas, then syncs.
        for round in 1 ... 5 {
            a.likes += round
            b.likes += 2 * round
            b.likes -= 1
            expectedLikes += 3 * round - 1
            a.highestBid = 100 + round * 7 % 5
            b.highestBid = 100 + round * 3 % 7
            expectedBid = max(expectedBid, 100 + round * 7 % 5, 100 + round * 3 % 7)
            // Both wrote before seeing the other's writes; they sync in turns, either first.
            let order = round % 2 == 0 ? [firstReplica, secondReplica] : [secondReplica, firstReplica]
            for replica in order { try await replica.sync() }
        }
        // Until neither has anything to push: the joins each wrote travel too.
        for _ in 0 ..< 3 {
            try await firstReplica.sync()
            try await secondReplica.sync()
        }
        #expect(a.likes == expectedLikes)
        #expect(b.likes == expectedLikes)
        #expect(a.highestBid == expectedBid)
        #expect(b.highestBid == expectedBid)
        #expect(a.title == b.title)
        let settled = try await firstReplica.sync()
        #expect(settled.pushed == 0 && settled.pulled == 0, "\(settled)")

        // The file reopened (a new process would): the sum is what was stored.
        let reopened = try SQLiteDatabase(path: file)
        #expect((reopened.get(id: 1) as ServedPost?)?.likes == expectedLikes)
    }

    @Test("two replicas save a Codable struct concurrently, sync, and both read the sum, the union and the maximum", arguments: [StoreKind.sqlite, .postgres])
    func concurrentCollectionSaves(kind: StoreKind) async throws {
        let pair = try await ServedReplicas(kind: kind)
        defer { pair.serve.kill() }
        let (file, first, second) = (pair.file, pair.first, pair.second)
        let (firstReplica, secondReplica) = (pair.firstReplica, pair.secondReplica)
        let policies: [String: MergePolicy] = ["likes": .counter, "tags": .union, "best": .max]
        let a = try first.collection(ServedArticle.self, name: "articles", merge: policies)
        let b = try second.collection(ServedArticle.self, name: "articles", merge: policies)
        try a.save(ServedArticle(id: "x", title: "first", likes: 1, tags: ["a"], best: 3))
        try b.save(ServedArticle(id: "x", title: "second", likes: 2, tags: ["b"], best: 5))
        var expectedLikes = 3
        for round in 1 ... 4 {
            // Both save from the copy they last read, before seeing the other's save.
            var onA = try #require(try a.fetch(id: "x"))
            var onB = try #require(try b.fetch(id: "x"))
            onA.likes += round
            onA.tags.insert("a\(round)")
            onA.best = round
            onB.likes += 2 * round
            onB.tags.insert("b\(round)")
            onB.best = 10 * round
            try a.save(onA)
            try b.save(onB)
            expectedLikes += 3 * round
            let order = round % 2 == 0 ? [firstReplica, secondReplica] : [secondReplica, firstReplica]
            for replica in order { try await replica.sync() }
        }
        for _ in 0 ..< 3 {
            try await firstReplica.sync()
            try await secondReplica.sync()
        }
        let expectedTags: Set<String> = ["a", "b", "a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
        for articles in [a, b] {
            let article = try #require(try articles.fetch(id: "x"))
            #expect(article.likes == expectedLikes)
            #expect(article.tags == expectedTags)
            #expect(article.best == 40)
        }
        #expect(try a.fetch(id: "x")?.title == b.fetch(id: "x")?.title)
        let settled = try await firstReplica.sync()
        #expect(settled.pushed == 0 && settled.pulled == 0, "\(settled)")

        // The file reopened: the sum is what was stored.
        let reopened = try SQLiteDatabase(path: file)
        #expect(try reopened.collection(ServedArticle.self, name: "articles", merge: policies).fetch(id: "x")?.likes == expectedLikes)
    }
}

/// A real `pathbase serve` and two replicas of one account on it: an SQLite file and an
/// in-memory history database.
private struct ServedReplicas {
    let serve: ServeProcess
    let file: String
    let first: SQLiteDatabase
    let second: InMemoryHistoryDatabase
    let firstReplica: Replica
    let secondReplica: Replica

    init(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        self.serve = serve
        file = ServerTestFiles.newPath()
        first = try SQLiteDatabase(path: file)
        second = InMemoryHistoryDatabase()
        firstReplica = try Replica(database: first, transport: HTTPSyncTransport(server: serve.url, token: token))
        secondReplica = try Replica(database: second, transport: HTTPSyncTransport(server: serve.url, token: token))
    }
}
