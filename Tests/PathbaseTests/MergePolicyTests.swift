import Foundation
import Observation
import Pathbase
import PathbaseSQLite
import Testing

// Model ids 5100–5109: merge policies.

@Model(id: 5100)
final class MergedPost {
    @Property(id: 1, merge: .counter)
    var likes: Int

    @Property(id: 2, merge: .max)
    var highestBid: Int

    @Property(id: 3, merge: .min)
    var lowestPrice: Int = .max

    @Property(id: 4)
    var title: String

    @Property(id: 5, merge: .counter)
    var score: Int = 10

    @Property(id: 6, merge: .max)
    var latestVersion: String

    @Property(id: 7, merge: .union)
    var tags: Set<String>

    @ReferenceList(id: 8, merge: .union)
    var related: [MergedPost]
}

/// The same model written as a value without a policy: what an app version before the
/// policy stored (see `newestWinsStaysForOtherProperties`).
@Model(id: 5101)
final class UnmergedPost {
    @Property(id: 4)
    var title: String
}

/// `@Property(id:merge:)`: every store and wrapper reads plain values that combine by the
/// policy, locally and when records of other replicas are applied.
@Suite("Merge policies")
struct MergePolicyTests {

    @Test("counters add, max keeps the largest, min the smallest: read back as plain values", arguments: DatabaseKind.allCases)
    func localWrites(kind: DatabaseKind) {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 1)
        #expect(post.likes == 0)
        #expect(post.score == 10)
        #expect(post.lowestPrice == .max)
        post.likes += 1
        post.likes += 2
        post.likes -= 1
        post.score += 5
        post.highestBid = 120
        post.highestBid = 100
        post.lowestPrice = 90
        post.lowestPrice = 95
        post.latestVersion = "1.2"
        post.latestVersion = "1.10" // "1.2" > "1.10" as strings
        let again: MergedPost? = database.get(id: 1)
        #expect(again?.likes == 2)
        #expect(again?.score == 15)
        #expect(again?.highestBid == 120)
        #expect(again?.lowestPrice == 90)
        #expect(again?.latestVersion == "1.2")
    }

    @Test("create with values and deleteAndClearProperties go through the policies", arguments: DatabaseKind.backends)
    func generatedMembers(kind: DatabaseKind) {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 2, likes: 3, highestBid: 7, lowestPrice: 4, title: "t", score: 12, latestVersion: "a")
        #expect(post.likes == 3)
        #expect(post.score == 12)
        #expect(post.highestBid == 7)
        #expect(post.lowestPrice == 4)
        post.deleteAndClearProperties()
        // A counter is set back to its initial value (a decrement); max and min keep theirs.
        #expect(post.likes == 0)
        #expect(post.score == 10)
        #expect(post.highestBid == 7)
    }

    @Test("concurrent writes on two replicas combine whatever the order, also as encoded sync records", arguments: HistoryDatabaseKind.allCases, [false, true])
    func twoReplicas(kind: HistoryDatabaseKind, encoded: Bool) throws {
        let first = kind.make()
        let second = kind.make()
        let a = MergedPost.create(in: first, id: 1, title: "a")
        let b = MergedPost.create(in: second, id: 1, title: "b")
        a.likes += 2
        a.highestBid = 50
        a.lowestPrice = 30
        b.likes += 3
        b.likes -= 1
        b.highestBid = 40
        b.lowestPrice = 20
        let fromFirst = try MergeTransfer.records(of: first, encoded: encoded)
        let fromSecond = try MergeTransfer.records(of: second, encoded: encoded)
        // Each applies the other's records: both end with the join.
        for record in fromSecond { first.apply(record) }
        for record in fromFirst.reversed() { second.apply(record) }
        for database in [first, second] {
            let post: MergedPost? = database.get(id: 1)
            #expect(post?.likes == 4)
            #expect(post?.highestBid == 50)
            #expect(post?.lowestPrice == 20)
        }
        // The joins each wrote travel too, and once the replicas agree nothing more is written:
        // two replicas never answer each other's joins forever.
        let seen = (first.records().count, second.records().count)
        for _ in 0 ..< 2 {
            for record in try MergeTransfer.records(of: second, encoded: encoded) { first.apply(record) }
            for record in try MergeTransfer.records(of: first, encoded: encoded) { second.apply(record) }
        }
        let settled = (first.records().count, second.records().count)
        for _ in 0 ..< 2 {
            for record in try MergeTransfer.records(of: second, encoded: encoded) { first.apply(record) }
            for record in try MergeTransfer.records(of: first, encoded: encoded) { second.apply(record) }
        }
        #expect(first.records().count == settled.0)
        #expect(second.records().count == settled.1)
        #expect(settled.0 >= seen.0)
        let stateA: CounterValue? = first.get(a.path(of: .likes))
        let stateB: CounterValue? = second.get(b.path(of: .likes))
        #expect(stateA == stateB)
        // The newest title wins, as without policies.
        let titles = Set([first, second].map { ($0.get(id: 1) as MergedPost?)?.title })
        #expect(titles.count == 1)
    }

    @Test(
        "first increments made in editing contexts on two replicas add up (not kept under one id), also through wrappers over the contexts",
        arguments: HistoryDatabaseKind.allCases, [false, true])
    func firstIncrementsInContexts(kind: HistoryDatabaseKind, wrapped: Bool) throws {
        let first = kind.make()
        let second = kind.make()
        for (database, increment) in [(first, 3), (second, 2)] {
            let context = database.createEditingContext()
            let writer: any Database = wrapped ? ObservableDatabase(wrapping: UndoableDatabase(wrapping: context)) : context
            MergedPost(database: writer, id: 1).likes += increment
            context.commitChanges()
        }
        let fromFirst = try MergeTransfer.records(of: first, encoded: true)
        for record in try MergeTransfer.records(of: second, encoded: true) { first.apply(record) }
        for record in fromFirst { second.apply(record) }
        #expect(MergedPost(database: first, id: 1).likes == 5)
        #expect(MergedPost(database: second, id: 1).likes == 5)
    }

    @Test("a record without a policy is applied as before: newest wins, nothing else written", arguments: HistoryDatabaseKind.allCases)
    func newestWinsStaysForOtherProperties(kind: HistoryDatabaseKind) throws {
        let first = kind.make()
        let second = kind.make()
        UnmergedPost.create(in: first, id: 1).title = "older"
        UnmergedPost.create(in: second, id: 1).title = "newer"
        let incoming = try MergeTransfer.records(of: second, encoded: true)
        let before = first.records().count
        for record in incoming { first.apply(record) }
        #expect(first.records().count == before + incoming.count)
        #expect((first.get(id: 1) as UnmergedPost?)?.title == "newer")
    }

    @Test("an editing context's increment adds to increments committed meanwhile", arguments: HistoryDatabaseKind.allCases, [false, true])
    func editingContext(kind: HistoryDatabaseKind, snapshot: Bool) {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 1)
        post.likes = 5
        post.highestBid = 10
        let context = snapshot ? database.createEditingContextWithCurrentState() : database.createEditingContext()
        let edited: MergedPost? = context.get(id: 1)
        edited?.likes += 2
        edited?.likes += 1
        edited?.highestBid = 8
        // Meanwhile, in the database: another increment and a higher bid.
        post.likes += 10
        post.highestBid = 9
        #expect(post.likes == 15)
        context.commitChanges()
        #expect(post.likes == 18)
        #expect(post.highestBid == 10)
        // Further edits in the same context land from what it committed.
        edited?.likes -= 1
        context.commitChanges()
        #expect(post.likes == 17)
    }

    @Test("a commit with onConflict: .fail merges the context's increments and bids with those made meanwhile; only a newest-wins property is a conflict", arguments: HistoryDatabaseKind.allCases)
    func failPolicyMerges(kind: HistoryDatabaseKind) throws {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 1, title: "first")
        post.likes = 5
        let context = database.createEditingContext()
        let edited = try #require(context.get(id: 1) as MergedPost?)
        edited.likes += 2
        edited.highestBid = 8
        // Meanwhile, in the database: another increment and another bid.
        post.likes += 10
        post.highestBid = 9
        try context.commitChanges(onConflict: .fail)
        #expect(post.likes == 17)
        #expect(post.highestBid == 9)

        // A newest-wins property changed meanwhile is still a conflict, and nothing is written.
        edited.likes += 1
        edited.title = "from the context"
        post.title = "from the database"
        post.likes += 100
        #expect(throws: EditingContextError.conflicts([Path(model: MergedPost.modelId, instance: 1, property: 4)])) {
            try context.commitChanges(onConflict: .fail)
        }
        #expect(post.likes == 117)
        #expect(post.title == "from the database")
    }

    @Test("undo takes back the change, not the state: increments made since stay", arguments: HistoryDatabaseKind.undoableBases)
    func undo(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let post = MergedPost.create(in: database, id: 1)
        post.likes += 1
        post.likes += 2
        post.highestBid = 30
        // Another replica's increment arrives.
        let other = InMemoryHistoryDatabase()
        MergedPost.create(in: other, id: 1).likes += 100
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(post.likes == 103)
        #expect(database.undo()) // the bid: the largest value stays the largest
        #expect(post.highestBid == 30)
        #expect(database.undo()) // += 2
        #expect(post.likes == 101)
        #expect(database.undo()) // += 1, the first write of the path
        #expect(post.likes == 100)
        #expect(database.redo())
        #expect(post.likes == 101)
    }

    @Test("a history view reads the value a merged property had then", arguments: HistoryDatabaseKind.allCases)
    func historyView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 1)
        post.likes += 1
        post.highestBid = 5
        let then = database.clock.now()
        post.likes += 1
        post.highestBid = 7
        let view = database.view(at: then)
        let old: MergedPost? = view.get(id: 1)
        #expect(old?.likes == 1)
        #expect(old?.highestBid == 5)
        #expect(post.likes == 2)
    }

    @Test("observers of a model hear a merged property change when another replica's record is applied")
    func observation() throws {
        let database = ObservedDatabase(wrapping: InMemoryHistoryDatabase())
        let post = MergedPost.create(in: database, id: 1)
        post.likes += 1
        let fired = observeChanges { _ = post.likes }
        let other = InMemoryHistoryDatabase()
        MergedPost.create(in: other, id: 1).likes += 4
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(fired.value >= 1)
        #expect(post.likes == 5)
    }

    @Test("a merged property stores its policy's state and is left out of filters run in the database")
    func generatedLookups() {
        #expect(MergedPost._$propertyType(1).map(ObjectIdentifier.init) == ObjectIdentifier(CounterValue.self))
        #expect(MergedPost._$propertyType(2).map(ObjectIdentifier.init) == ObjectIdentifier(MaximumValue<Int>.self))
        #expect(MergedPost._$propertyType(3).map(ObjectIdentifier.init) == ObjectIdentifier(MinimumValue<Int>.self))
        #expect(MergedPost._$propertyType(4).map(ObjectIdentifier.init) == ObjectIdentifier(String.self))
        #expect(MergedPost._$propertyKey(for: \MergedPost.likes) == nil)
        #expect(MergedPost._$propertyKey(for: \MergedPost.title) == 4)
    }

    @Test("filters and sorts on a merged property read the plain values", arguments: DatabaseKind.backends)
    func queries(kind: DatabaseKind) {
        let database = kind.make()
        for id in 1 ... 4 {
            MergedPost.create(in: database, id: id).likes += id * 10
        }
        let popular = database.all(of: MergedPost.self).filter { $0.likes > 15 }.sorted { $0.likes > $1.likes }.map(\.id)
        #expect(popular == [4, 3, 2])
    }

    @Test("a live query filtered and sorted on a counter follows increments, applied ones too", arguments: [false, true])
    func liveQuery(onSQLite: Bool) throws {
        if onSQLite {
            try liveQuery(over: SQLiteTestFiles.makeDatabase(path: nil))
        } else {
            try liveQuery(over: InMemoryHistoryDatabase())
        }
    }

    private func liveQuery<Base: HistoryDatabase>(over base: Base) throws {
        let database = ObservedDatabase(wrapping: base)
        let posts = (1 ... 3).map { MergedPost.create(in: database, id: $0) }
        let live = LiveQuery(QueryDescriptor<MergedPost>(where: \.likes >= 2, sortBy: \.likes), in: database)
        #expect(live.results.isEmpty)
        posts[1].likes += 3
        posts[0].likes += 2
        #expect(live.results.map(\.id) == [1, 2])
        let other = InMemoryHistoryDatabase()
        MergedPost.create(in: other, id: 3).likes += 5
        MergedPost.create(in: other, id: 2).likes -= 2
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(live.results.map(\.id) == [1, 3])
    }

    @Test("two replicas sync concurrent increments and bids through a server")
    func replicas() async throws {
        let transport = ReplicaTestTransport()
        let first = InMemoryHistoryDatabase()
        let second = InMemoryHistoryDatabase()
        let firstReplica = try Replica(database: first, transport: transport)
        let secondReplica = try Replica(database: second, transport: transport)
        let a = MergedPost.create(in: first, id: 1)
        let b = MergedPost.create(in: second, id: 1)
        a.likes += 1
        b.likes += 1
        b.likes += 1
        a.highestBid = 12
        b.highestBid = 15
        // The stand-in refuses another value under a stored key as SyncServer does: no sync
        // may have a record rejected.
        var rejected = try await firstReplica.sync().rejected
        rejected += try await secondReplica.sync().rejected
        rejected += try await firstReplica.sync().rejected
        #expect(rejected == 0)
        #expect(a.likes == 3)
        #expect(b.likes == 3)
        #expect(a.highestBid == 15)
        #expect(b.highestBid == 15)
        // The joins each wrote when it pulled travel a round later (a replica that pulls a
        // newer but smaller state writes its join again); within a few rounds nothing is left
        // to exchange: replicas that agree write nothing more.
        var quiet = false
        for _ in 0 ..< 6 where !quiet {
            let reports = [try await secondReplica.sync(), try await firstReplica.sync()]
            #expect(reports.allSatisfy { $0.rejected == 0 }, "\(reports)")
            quiet = reports.allSatisfy { $0.pushed == 0 && $0.pulled == 0 }
        }
        #expect(quiet)
        #expect(a.likes == 3 && b.likes == 3 && a.highestBid == 15 && b.highestBid == 15)
    }

    @Test("a state of a type this process has not written decodes once registered")
    func registeredTypes() throws {
        let path = Path(model: 5102, instance: 1, property: 1)
        let first = InMemoryHistoryDatabase()
        let second = InMemoryHistoryDatabase()
        first.set(MaximumValue(AppVersion(major: 3)), for: path)
        second.set(MaximumValue(AppVersion(major: 2)), for: path)
        MergeableTypes.register(MaximumValue<AppVersion>.self)
        for record in try MergeTransfer.records(of: first, encoded: true) { second.apply(record) }
        let joined: MaximumValue<AppVersion>? = second.get(path)
        #expect(joined?.value.major == 3)
    }

    @Test(".max and .min states are stored as the plain value, and each keeps its own extreme")
    func extremeStates() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(MaximumValue(7)), as: UTF8.self) == "7")
        #expect(String(decoding: try encoder.encode(MinimumValue("b")), as: UTF8.self) == "\"b\"")
        #expect(try JSONDecoder().decode(MinimumValue<Int>.self, from: Data("4".utf8)) == MinimumValue(4))
        #expect(MaximumValue(3).merged(with: MaximumValue(5)).value == 5)
        #expect(MaximumValue(5).merged(with: MaximumValue(3)).value == 5)
        #expect(MinimumValue(3).merged(with: MinimumValue(5)).value == 3)
        #expect(MinimumValue(5).merged(with: MinimumValue(3)).value == 3)
        #expect(MaximumValue(3) != MaximumValue(4))
    }

    @Test(".max and .min joins keep the same bits whichever replica merges first: NaN, -0.0 and canonically equal strings (issue 67)")
    func extremeTies() throws {
        let doubles: [Double] = [.nan, -.nan, -0.0, 0.0, 1, -.infinity, .infinity]
        // "é" precomposed and decomposed: equal Strings of other bytes.
        let strings = ["\u{E9}", "e\u{301}", "a"]
        func laws<State: ExtremeValue>(_ states: [State], bits: (State) -> [UInt8]) {
            for x in states {
                #expect(bits(x.merged(with: x)) == bits(x))
                for y in states {
                    #expect(bits(x.merged(with: y)) == bits(y.merged(with: x)), "\(x.value) and \(y.value)")
                    for z in states {
                        #expect(bits(x.merged(with: y).merged(with: z)) == bits(x.merged(with: y.merged(with: z))))
                    }
                }
            }
        }
        let doubleBits: (Double) -> [UInt8] = { withUnsafeBytes(of: $0.bitPattern) { Array($0) } }
        laws(doubles.map(MaximumValue.init)) { doubleBits($0.value) }
        laws(doubles.map(MinimumValue.init)) { doubleBits($0.value) }
        laws(strings.map(MaximumValue.init)) { Array($0.value.utf8) }
        laws(strings.map(MinimumValue.init)) { Array($0.value.utf8) }
        // The order: 0.0 above -0.0, a NaN above infinity for .max and never below a number for .min.
        #expect(MaximumValue(-0.0).merged(with: MaximumValue(0.0)).value.sign == .plus)
        #expect(MinimumValue(0.0).merged(with: MinimumValue(-0.0)).value.sign == .minus)
        #expect(MaximumValue(5.0).merged(with: MaximumValue(.nan)).value.isNaN)
        #expect(MinimumValue(Double.nan).merged(with: MinimumValue(5.0)).value == 5)
        // A NaN state is no change when merged with itself (else each merge would write it again).
        #expect(MaximumValue(Double.nan) == MaximumValue(Double.nan))
        #expect(MaximumValue(0.0) != MaximumValue(-0.0))
    }

    @Test("two replicas that bid canonically equal strings concurrently end with the same bytes", arguments: HistoryDatabaseKind.allCases, [false, true])
    func extremeTiesAcrossReplicas(kind: HistoryDatabaseKind, encoded: Bool) throws {
        let first = kind.make()
        let second = kind.make()
        MergedPost.create(in: first, id: 1, title: "a").latestVersion = "\u{E9}"
        MergedPost.create(in: second, id: 1, title: "b").latestVersion = "e\u{301}"
        for _ in 0 ..< 2 {
            for record in try MergeTransfer.records(of: second, encoded: encoded) { first.apply(record) }
            for record in try MergeTransfer.records(of: first, encoded: encoded) { second.apply(record) }
        }
        let versions = [first, second].map { (($0.get(id: 1) as MergedPost?)?.latestVersion).map { Array($0.utf8) } }
        #expect(versions[0] != nil && versions[0] == versions[1], "\(versions)")
    }
}

/// A `Comparable` type of the app's own, for a `.max` state.
struct AppVersion: Codable, Comparable, Sendable {
    var major: Int
    static func < (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.major < rhs.major }
}

/// `.union`: add-wins observed-remove sets and reference lists.
@Suite("Merge policies: union")
struct UnionMergePolicyTests {

    @Test("a union set and reference list read and write like plain ones", arguments: DatabaseKind.allCases)
    func localWrites(kind: DatabaseKind) {
        let database = kind.make()
        let post = MergedPost.create(in: database, id: 1)
        let others = (2 ... 4).map { MergedPost.create(in: database, id: $0) }
        #expect(post.tags.isEmpty && post.related.isEmpty)
        post.tags = ["swift", "sync"]
        post.tags.insert("crdt")
        post.tags.remove("sync")
        post.related = [others[1], others[0]]
        post.related.append(others[2])
        post.related.append(others[0]) // once only
        let again: MergedPost? = database.get(id: 1)
        #expect(again?.tags == ["swift", "crdt"])
        #expect(again?.related.map(\.id) == [3, 2, 4])
        post.related.removeAll { $0.id == 3 }
        #expect(again?.related.map(\.id) == [2, 4])
    }

    @Test("referrers(through:) a union reference list finds the instances whose list holds this one, and follows removals and deletions", arguments: DatabaseKind.allCases)
    func inverseLookup(kind: DatabaseKind) {
        let database = kind.make()
        let posts = (1 ... 4).map { MergedPost.create(in: database, id: $0) }
        posts[0].related = [posts[3], posts[1]]
        posts[2].related = [posts[3]]
        posts[1].related = [posts[2]]
        #expect(posts[3].referrers(through: \MergedPost.related).map(\.id).sorted() == [1, 3])
        #expect(posts[1].referrers(through: \MergedPost.related).map(\.id) == [1])
        #expect(posts[0].referrers(through: \MergedPost.related).isEmpty)
        posts[0].related.removeAll { $0.id == 4 }
        posts[2].delete()
        #expect(posts[3].referrers(through: \MergedPost.related).isEmpty)
        #expect(posts[1].referrers(through: \MergedPost.related).map(\.id) == [1])
    }

    @Test("concurrent additions both survive; a removal removes only the additions its replica had seen", arguments: HistoryDatabaseKind.allCases, [false, true])
    func addWins(kind: HistoryDatabaseKind, encoded: Bool) throws {
        let (a, b, c) = (kind.make(), kind.make(), kind.make())
        let onA = MergedPost.create(in: a, id: 1)
        onA.tags = ["shared", "kept"]
        onA.related = [MergedPost(database: a, id: 7)]
        func exchange(_ from: any HistoryDatabase, _ to: any HistoryDatabase) throws {
            for record in try MergeTransfer.records(of: from, encoded: encoded) { to.apply(record) }
        }
        try exchange(a, b)
        let onB: MergedPost? = b.get(id: 1)
        let onC = MergedPost.create(in: c, id: 1)
        // Concurrently: B removes what it saw and adds; C (which saw nothing) adds "shared" too.
        onB?.tags.remove("shared")
        onB?.tags.insert("fromB")
        onB?.related.append(MergedPost(database: b, id: 8))
        onC.tags.insert("shared")
        onC.tags.insert("fromC")
        onC.related = [MergedPost(database: c, id: 9)]
        // Meanwhile A adds too.
        onA.tags.insert("fromA")
        for (from, to) in [(a, b), (b, c), (c, a), (a, b), (b, c), (c, a)] { try exchange(from, to) }
        for database in [a, b, c] {
            let post: MergedPost? = database.get(id: 1)
            // "shared": B's removal covered only A's addition, not C's concurrent one.
            #expect(post?.tags == ["shared", "kept", "fromA", "fromB", "fromC"])
            #expect(Set(post?.related.map(\.id) ?? []) == [7, 8, 9])
        }
        // The same order everywhere.
        let orders = Set([a, b, c].map { ($0.get(id: 1) as MergedPost?)?.related.map(\.id) ?? [] })
        #expect(orders.count == 1)
    }

    @Test("undoing an addition removes it, keeping additions made elsewhere since", arguments: HistoryDatabaseKind.undoableBases)
    func undo(kind: HistoryDatabaseKind) throws {
        let database = kind.makeUndoable()
        let post = MergedPost.create(in: database, id: 1)
        post.tags.insert("mine")
        let other = InMemoryHistoryDatabase()
        MergedPost.create(in: other, id: 1).tags.insert("theirs")
        for record in try MergeTransfer.records(of: other, encoded: true) { database.apply(record) }
        #expect(post.tags == ["mine", "theirs"])
        #expect(database.undo())
        #expect(post.tags == ["theirs"])
        #expect(database.redo())
        #expect(post.tags == ["mine", "theirs"])
    }

    @Test("the state merges as a join: commutative, associative, idempotent")
    func joinLaws() {
        var states: [UnionValue<Int>] = []
        var generator = SystemRandomNumberGenerator()
        for replica in UInt32(1) ... 4 {
            var state = UnionValue<Int>()
            for _ in 0 ..< 6 {
                let element = Int.random(in: 0 ..< 5, using: &generator)
                state = Bool.random(using: &generator) ? state.inserting(element, by: replica) : state.removing(element)
            }
            states.append(state)
        }
        for x in states {
            #expect(x.merged(with: x) == x)
            for y in states {
                #expect(x.merged(with: y) == y.merged(with: x))
                for z in states {
                    #expect(x.merged(with: y).merged(with: z) == x.merged(with: y.merged(with: z)))
                }
            }
        }
    }
}

/// Records as one replica hands them to another.
enum MergeTransfer {
    /// The records of a database, as they are (in memory) or through the sync format, where
    /// a state travels as an `EncodedValue`.
    static func records(of database: any HistoryDatabase, encoded: Bool) throws -> [Record] {
        let records = database.records()
        guard encoded else { return records }
        return try records.map { try SyncRecord($0).record() }
    }
}
