import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

// Model ids 5110–5119: merge policies through a server.

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
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let file = ServerTestFiles.newPath()
        let first = try SQLiteDatabase(path: file)
        let second = InMemoryHistoryDatabase()
        let firstReplica = try Replica(database: first, transport: HTTPSyncTransport(server: serve.url, token: token))
        let secondReplica = try Replica(database: second, transport: HTTPSyncTransport(server: serve.url, token: token))
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
}
