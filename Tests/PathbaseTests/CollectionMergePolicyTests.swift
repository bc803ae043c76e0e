import Foundation
import Pathbase
import PathbaseSQLite
import Testing

/// A struct whose fields merge by policy in the tests' collections.
struct MergedArticle: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var title: String
    var likes: Int
    var tags: Set<String>
    var authors: [String]
    var best: Int
    var lowest: Double
}

/// The policies the tests' collections of ``MergedArticle`` use.
let mergedArticlePolicies: [String: MergePolicy] = ["likes": .counter, "tags": .union, "authors": .union, "best": .max, "lowest": .min]

extension Database {
    /// The collection of ``MergedArticle`` with its policies.
    func mergedArticles() throws -> CodableCollection<MergedArticle> {
        try collection(MergedArticle.self, name: "mergedArticles", merge: mergedArticlePolicies)
    }
}

extension MergedArticle {
    init(id: Int, likes: Int = 0, tags: Set<String> = [], best: Int = 0) {
        self.init(id: id, title: "t\(id)", likes: likes, tags: tags, authors: [], best: best, lowest: 100)
    }
}

/// `database.collection(_:merge:)`: fields of Codable collections merge by policy, as `@Model`
/// properties do, on every store and wrapper.
@Suite("Merge policies: Codable collections")
struct CollectionMergePolicyTests {

    @Test("fields read back as plain values; saves go through the policies", arguments: DatabaseKind.backends)
    func localWrites(kind: DatabaseKind) throws {
        let articles = try kind.make().mergedArticles()
        try articles.save(MergedArticle(id: 1, title: "a", likes: 3, tags: ["x"], authors: ["ada", "grace", "ada"], best: 10, lowest: 5))
        var article = try #require(try articles.fetch(id: 1))
        #expect(article == MergedArticle(id: 1, title: "a", likes: 3, tags: ["x"], authors: ["ada", "grace"], best: 10, lowest: 5))
        article.likes += 2
        article.tags.insert("y")
        article.authors = ["grace", "linus"]
        article.best = 7 // smaller: the largest stays
        article.lowest = 9 // larger: the smallest stays
        try articles.save(article)
        let again = try #require(try articles.fetch(id: 1))
        #expect(again.likes == 5)
        #expect(again.tags == ["x", "y"])
        #expect(again.authors == ["grace", "linus"])
        #expect(again.best == 10)
        #expect(again.lowest == 5)
        #expect(articles.mergePolicies == mergedArticlePolicies)
    }

    @Test("fields store their policy's state; other fields their plain value")
    func storedStates() throws {
        let database = InMemoryHistoryDatabase()
        try database.mergedArticles().save(MergedArticle(id: 1, likes: 4, tags: ["x"], best: 2))
        let values = database.records().map(\.value)
        #expect(values.compactMap { ($0 as? CounterValue)?.value } == [4])
        #expect(values.compactMap { ($0 as? MaximumValue<Int>)?.value } == [2])
        #expect(values.compactMap { ($0 as? MinimumValue<Double>)?.value } == [100])
        #expect(values.compactMap { ($0 as? UnionValue<String>)?.elements } == [[], ["x"]] || values.compactMap { ($0 as? UnionValue<String>)?.elements } == [["x"], []])
        #expect(values.contains { $0 as? String == "t1" })
        // Opened without the policies, a merged field is undecodable, never a wrong value.
        #expect(throws: CollectionError.self) { try database.collection(MergedArticle.self, name: "mergedArticles").fetch(id: 1) }
    }

    @Test("concurrent saves on two replicas combine whatever the order, also as encoded sync records", arguments: HistoryDatabaseKind.allCases, [false, true])
    func twoReplicas(kind: HistoryDatabaseKind, encoded: Bool) throws {
        let first = kind.make()
        let second = kind.make()
        let a = try first.mergedArticles()
        let b = try second.mergedArticles()
        // Both create the struct before seeing the other's.
        try a.save(MergedArticle(id: 1, likes: 2, tags: ["a"], best: 50))
        try b.save(MergedArticle(id: 1, likes: 3, tags: ["b"], best: 40))
        var onB = try #require(try b.fetch(id: 1))
        onB.likes -= 1
        onB.lowest = 20
        try b.save(onB)
        let fromFirst = try MergeTransfer.records(of: first, encoded: encoded)
        let fromSecond = try MergeTransfer.records(of: second, encoded: encoded)
        for record in fromSecond { first.apply(record) }
        for record in fromFirst.reversed() { second.apply(record) }
        for articles in [a, b] {
            let article = try #require(try articles.fetch(id: 1))
            #expect(article.likes == 4)
            #expect(article.tags == ["a", "b"])
            #expect(article.best == 50)
            #expect(article.lowest == 20)
        }
        // Once the replicas agree, exchanging again writes nothing.
        for _ in 0 ..< 2 {
            for record in try MergeTransfer.records(of: second, encoded: encoded) { first.apply(record) }
            for record in try MergeTransfer.records(of: first, encoded: encoded) { second.apply(record) }
        }
        let settled = (first.records().count, second.records().count)
        for record in try MergeTransfer.records(of: second, encoded: encoded) { first.apply(record) }
        for record in try MergeTransfer.records(of: first, encoded: encoded) { second.apply(record) }
        #expect(first.records().count == settled.0)
        #expect(second.records().count == settled.1)
        // The newest title wins, as without policies.
        #expect(try a.fetch(id: 1)?.title == b.fetch(id: 1)?.title)
    }

    @Test("a save lands the change since the struct was read: a stale copy overwrites no increment, no addition")
    func staleSaves() throws {
        let database = InMemoryHistoryDatabase()
        let articles = try database.mergedArticles()
        try articles.save(MergedArticle(id: 1, likes: 1, tags: ["a"]))
        var stale = try #require(try articles.fetch(id: 1))
        // Another replica's increment and addition arrive after the fetch.
        let other = InMemoryHistoryDatabase()
        for record in database.records() { other.apply(record) }
        let elsewhere = try other.mergedArticles()
        var there = try #require(try elsewhere.fetch(id: 1))
        there.likes += 10
        there.tags.insert("b")
        try elsewhere.save(there)
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        // The stale copy: one more like, "a" removed.
        stale.likes += 1
        stale.tags.remove("a")
        try articles.save(stale)
        var merged = try #require(try articles.fetch(id: 1))
        #expect(merged.likes == 12)
        #expect(merged.tags == ["b"])
        // Saving the same struct again changes nothing; `replace` lands differences too.
        try articles.save(merged)
        merged.likes -= 2
        try articles.replace(merged)
        #expect(try articles.fetch(id: 1)?.likes == 10)
        // A collection that never read the struct saves against what is stored.
        try database.mergedArticles().save(MergedArticle(id: 1, likes: 11, tags: ["b"]))
        #expect(try articles.fetch(id: 1)?.likes == 11)
    }

    @Test("policies on fields of the wrong type, or on no field, are refused with a typed error")
    func validation() {
        let database = InMemoryDatabase()
        func refusal(_ merge: [String: MergePolicy]) -> CollectionError? {
            do {
                _ = try database.collection(MergedArticle.self, name: "refused", merge: merge)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal(["title": .counter]) == .invalidMergePolicy(collection: "refused", key: "title", reason: "the .counter policy needs an Int field, and 'title' is String"))
        #expect(refusal(["best": .union]) == .invalidMergePolicy(collection: "refused", key: "best", reason: "the .union policy needs a Set or an array of Hashable elements, and 'best' is Int"))
        #expect(refusal(["tags": .max]) == .invalidMergePolicy(collection: "refused", key: "tags", reason: "the .max policy needs a Comparable field, and 'tags' is Set<String>"))
        #expect(refusal(["likez": .counter]) == .invalidMergePolicy(collection: "refused", key: "likez", reason: "MergedArticle has no stored property 'likez'"))
        #expect(refusal(["likez": .counter])?.errorDescription?.contains("'likez'") == true)
        #expect(refusal(["title": .newestWins, "likes": .counter]) == nil)
    }

    @Test("filters and sorts on merged fields run on the plain values; the rest still runs in the database", arguments: DatabaseKind.backends)
    func queries(kind: DatabaseKind) throws {
        let articles = try kind.make().mergedArticles()
        for id in 1 ... 4 {
            try articles.save(MergedArticle(id: id, likes: id * 10, tags: id.isMultiple(of: 2) ? ["even"] : []))
        }
        var third = try #require(try articles.fetch(id: 3))
        third.likes += 30 // 60: now first
        try articles.save(third)
        #expect(try articles.fetch(where: \.likes > 15, sortedBy: \.likes, descending: true).map(\.id) == [3, 4, 2])
        #expect(try articles.fetch(where: \.likes >= 20 && \.title != "t4", sortedBy: \.likes).map(\.id) == [2, 3])
        #expect(try articles.count(where: \.likes < 25 || \.best > 0) == 2)
        #expect(try articles.fetch(where: .all, sortedBy: \.likes, limit: 2).map(\.id) == [1, 2])
        // The condition on the merged field is left out of what the database runs.
        #expect(articles.storedPredicate(for: \.likes > 15) == nil)
        #expect(articles.storedPredicate(for: \.likes > 15 && \.title == "t1") != nil)
        try articles.delete(where: \.likes >= 40)
        #expect(try articles.fetch().map(\.id) == [1, 2])
    }

    @Test("an editing context's saved increment adds to increments committed meanwhile", arguments: HistoryDatabaseKind.allCases)
    func editingContext(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let articles = try database.mergedArticles()
        try articles.save(MergedArticle(id: 1, likes: 5, best: 10))
        let context = database.createEditingContext()
        let edited = try context.mergedArticles()
        var draft = try #require(try edited.fetch(id: 1))
        draft.likes += 3
        draft.best = 8
        try edited.save(draft)
        // Meanwhile, in the database: another increment and a higher value.
        var current = try #require(try articles.fetch(id: 1))
        current.likes += 10
        current.best = 9
        try articles.save(current)
        context.commitChanges()
        let committed = try #require(try articles.fetch(id: 1))
        #expect(committed.likes == 18)
        #expect(committed.best == 10)
    }

    @Test("undo takes back a save's change, keeping increments applied since", arguments: HistoryDatabaseKind.undoableBases)
    func undo(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let articles = try database.mergedArticles()
        try articles.save(MergedArticle(id: 1, likes: 1, tags: ["a"]))
        var article = try #require(try articles.fetch(id: 1))
        article.likes += 2
        article.tags.insert("b")
        try articles.save(article)
        let other = InMemoryHistoryDatabase()
        for record in database.records() { other.apply(record) }
        let elsewhere = try other.mergedArticles()
        var there = try #require(try elsewhere.fetch(id: 1))
        there.likes += 100
        try elsewhere.save(there)
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(try articles.fetch(id: 1)?.likes == 103)
        #expect(database.undo()) // the save of +2 and "b"
        let undone = try #require(try articles.fetch(id: 1))
        #expect(undone.likes == 101)
        #expect(undone.tags == ["a"])
        #expect(database.redo())
        #expect(try articles.fetch(id: 1)?.likes == 103)
    }

    @Test("a history view reads the values merged fields had then", arguments: HistoryDatabaseKind.allCases)
    func historyView(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let articles = try database.mergedArticles()
        try articles.save(MergedArticle(id: 1, likes: 1, best: 5))
        let then = database.clock.now()
        var article = try #require(try articles.fetch(id: 1))
        article.likes += 1
        article.best = 7
        try articles.save(article)
        let old = try #require(try database.view(at: then).mergedArticles().fetch(id: 1))
        #expect(old.likes == 1)
        #expect(old.best == 5)
    }

    @Test("a live query on a counter follows saves and applied increments", arguments: [false, true])
    func liveQuery(sqlite: Bool) throws {
        if sqlite {
            try liveQuery(over: SQLiteTestFiles.makeDatabase(path: nil))
        } else {
            try liveQuery(over: InMemoryHistoryDatabase())
        }
    }

    private func liveQuery<Base: HistoryDatabase>(over base: Base) throws {
        let database = ObservedDatabase(wrapping: base)
        let articles = try database.mergedArticles()
        for id in 1 ... 3 { try articles.save(MergedArticle(id: id)) }
        let live = try articles.live(where: \.likes >= 2, sortedBy: [.ascending(\.likes)])
        #expect(live.results.isEmpty)
        try articles.save(MergedArticle(id: 2, likes: 3))
        try articles.save(MergedArticle(id: 1, likes: 2))
        #expect(live.results.map(\.id) == [1, 2])
        let other = InMemoryHistoryDatabase()
        for record in database.records() { other.apply(record) }
        let elsewhere = try other.mergedArticles()
        try elsewhere.save(MergedArticle(id: 3, likes: 5))
        try elsewhere.save(MergedArticle(id: 2, likes: 1))
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(live.results.map(\.id) == [1, 3])
    }

    @Test("without policies, a collection stores and merges exactly as before")
    func newestWinsUnchanged() throws {
        let first = InMemoryHistoryDatabase()
        let second = InMemoryHistoryDatabase()
        try first.collection(MergedArticle.self, name: "plain").save(MergedArticle(id: 1, likes: 2))
        try second.collection(MergedArticle.self, name: "plain").save(MergedArticle(id: 1, likes: 3))
        let before = first.records().count
        let incoming = try MergeTransfer.records(of: second, encoded: true)
        for record in incoming { first.apply(record) }
        #expect(first.records().count == before + incoming.count)
        #expect(try first.collection(MergedArticle.self, name: "plain").fetch(id: 1)?.likes == 3)
    }
}
