import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

// Model ids 5140–5149: conflict provenance through a server.

@Model(id: 5140)
final class ProvenanceNote {
    @Property(id: 1)
    var text: String

    @Property(id: 2)
    var pages: Int
}

struct ProvenanceCard: Codable, Identifiable, Equatable {
    var id: Int
    var title: String
    var pages: Int
}

/// The history databases the replicas of these tests use.
enum ProvenanceStore: String, CaseIterable, CustomStringConvertible {
    case sqlite, memory

    func make() throws -> any HistoryDatabase {
        switch self {
        case .sqlite: return try SQLiteDatabase(path: ServerTestFiles.newPath())
        case .memory: return InMemoryHistoryDatabase()
        }
    }

    var description: String { rawValue }
}

/// Issue 51, conflict provenance: replicas record what they had seen, so that writes made
/// without having seen each other are listed as conflicts, on every replica, through a
/// real `pathbase serve`.
@Suite("Conflict provenance through pathbase serve")
struct ConflictProvenanceTests {

    /// Two replicas of one server account, on databases of `store`.
    struct Pair {
        let serve: ServeProcess
        let first: any HistoryDatabase
        let second: any HistoryDatabase
        let firstReplica: Replica
        let secondReplica: Replica

        init(_ store: ProvenanceStore) async throws {
            let (serve, token) = try await StoreKind.sqlite.serveProcess(account: "alice")
            self.serve = serve
            first = try store.make()
            second = try store.make()
            firstReplica = try Replica(database: first, transport: HTTPSyncTransport(server: serve.url, token: token))
            secondReplica = try Replica(database: second, transport: HTTPSyncTransport(server: serve.url, token: token))
            firstReplica.recordsProvenance = true
            secondReplica.recordsProvenance = true
        }

        /// Syncs both until each has the other's records.
        func syncBoth() async throws {
            try await firstReplica.sync()
            try await secondReplica.sync()
            try await firstReplica.sync()
        }
    }

    /// A note created on the first replica and pulled by the second, then its text written
    /// on both before either synchronizes again.
    private func concurrentTexts(_ pair: Pair) async throws -> (ProvenanceNote, ProvenanceNote) {
        let a = ProvenanceNote.create(in: pair.first, id: 1, text: "draft", pages: 3)
        try await pair.syncBoth()
        let b = try #require(pair.second.get(id: 1) as ProvenanceNote?)
        a.text = "from first"
        b.text = "from second"
        try await pair.syncBoth()
        return (a, b)
    }

    @Test("concurrent writes are listed on both replicas, with both values, writers and the kept one", arguments: ProvenanceStore.allCases)
    func concurrentWritesListed(store: ProvenanceStore) async throws {
        let pair = try await Pair(store)
        defer { pair.serve.kill() }
        let (a, b) = try await concurrentTexts(pair)
        #expect(a.text == b.text)
        for (database, note) in [(pair.first, a), (pair.second, b)] {
            let conflicts = database.conflicts(of: note)
            try #require(conflicts.count == 1, "\(conflicts)")
            let conflict = conflicts[0]
            #expect(conflict.path == note.path(of: .text))
            #expect(Set(conflict.writes.map { $0.value as? String }) == ["from first", "from second"])
            #expect(Set(conflict.writes.map(\.replica)) == [pair.firstReplica.id, pair.secondReplica.id])
            let kept = conflict.writes.filter(\.isKept)
            #expect(kept.count == 1 && kept.first?.value as? String == note.text)
            #expect(conflict.kept.value as? String == note.text)
            #expect(conflict.losingWrites.map { $0.value as? String } == [note.text == "from first" ? "from second" : "from first"])
            // The kept write is the newest; the pages nobody wrote concurrently are no conflict.
            #expect(kept.first?.timestamp == conflict.writes.map(\.timestamp).max())
        }
    }

    @Test("a write made after pulling the other's is no conflict", arguments: ProvenanceStore.allCases)
    func sequentialWritesNotListed(store: ProvenanceStore) async throws {
        let pair = try await Pair(store)
        defer { pair.serve.kill() }
        let a = ProvenanceNote.create(in: pair.first, id: 1, text: "draft", pages: 3)
        try await pair.syncBoth()
        a.text = "one"
        try await pair.syncBoth()
        let b = try #require(pair.second.get(id: 1) as ProvenanceNote?)
        b.text = "two"
        try await pair.secondReplica.sync()
        try await pair.firstReplica.sync()
        a.text = "three"
        try await pair.syncBoth()
        #expect(b.text == "three")
        #expect(pair.first.conflicts(of: a).isEmpty)
        #expect(pair.second.conflicts(of: b).isEmpty)
        // What each pull recorded having seen went up in the same sync.
        #expect(pair.firstReplica.pendingRecords().isEmpty && pair.secondReplica.pendingRecords().isEmpty)
        #expect(pair.first.concurrentWrites(at: a.path(of: .text)).isEmpty)
        #expect(pair.second.concurrentWrites(at: b.path(of: .text)).isEmpty)
    }

    @Test("restoring a losing value writes it back as the newest, and the conflict is resolved everywhere", arguments: ProvenanceStore.allCases)
    func restoreLosingValue(store: ProvenanceStore) async throws {
        let pair = try await Pair(store)
        defer { pair.serve.kill() }
        let (a, b) = try await concurrentTexts(pair)
        let lost = try #require(pair.first.conflicts(of: a).first?.losingWrites.first)
        let lostText = try #require(lost.value as? String)
        pair.first.restore(lost)
        #expect(a.text == lostText)
        #expect(pair.first.conflicts(of: a).isEmpty)
        try await pair.syncBoth()
        #expect(b.text == lostText)
        #expect(pair.second.conflicts(of: b).isEmpty)
        // The history still holds both concurrent writes.
        #expect(pair.second.concurrentWrites(at: b.path(of: .text)).count == 2)
    }

    @Test("a collection struct's concurrent field writes are listed by coding key", arguments: ProvenanceStore.allCases)
    func collectionStructConflicts(store: ProvenanceStore) async throws {
        let pair = try await Pair(store)
        defer { pair.serve.kill() }
        let firstCards = pair.first.collection(ProvenanceCard.self, name: "provenance-cards")
        let secondCards = pair.second.collection(ProvenanceCard.self, name: "provenance-cards")
        try firstCards.save(ProvenanceCard(id: 1, title: "draft", pages: 1))
        try await pair.syncBoth()
        var first = try #require(try firstCards.fetch(id: 1))
        var second = try #require(try secondCards.fetch(id: 1))
        first.title = "first title"
        second.title = "second title"
        second.pages = 2
        try firstCards.save(first)
        try secondCards.save(second)
        try await pair.syncBoth()
        let stored = try #require(try firstCards.fetch(id: 1))
        #expect(try secondCards.fetch(id: 1) == stored)
        for cards in [firstCards, secondCards] {
            let conflicts = cards.conflicts(of: stored)
            try #require(conflicts.count == 1, "\(conflicts)")
            #expect(conflicts[0].field == "title")
            #expect(Set(conflicts[0].writes.map { $0.value as? String }) == ["first title", "second title"])
            #expect(conflicts[0].kept.value as? String == stored.title)
        }
    }

    @Test("`pathbase history` marks the concurrent writes and the kept one")
    func historyMarksConcurrentWrites() async throws {
        let pair = try await Pair(.sqlite)
        defer { pair.serve.kill() }
        let (a, _) = try await concurrentTexts(pair)
        let file = try #require((pair.first as? SQLiteDatabase)?.path)
        let history = try await ServeProcess.run(["history", file, "--model", "5140", "--instance", "1"])
        #expect(history.status == 0, "\(history.errors)")
        let lines = history.output.split(separator: "\n").map(String.init)
        let concurrent = lines.filter { $0.contains("concurrent") }
        #expect(concurrent.count == 2, "\(history.output)")
        #expect(concurrent.filter { $0.contains("kept") }.count == 1, "\(history.output)")
        #expect(concurrent.contains { $0.contains("kept") && $0.contains(a.text) }, "\(history.output)")
        #expect(lines.filter { $0.contains("draft") }.allSatisfy { !$0.contains("concurrent") }, "\(history.output)")
    }
}

/// The README's "Conflicts" example through a real `pathbase serve`: its syncs and loop.
@Suite("README: Conflicts")
struct ConflictsReadmeExampleTests {

    @Test("the example lists the conflict of two replicas and restores the losing value")
    func example() async throws {
        let pair = try await ConflictProvenanceTests.Pair(.sqlite)
        defer { pair.serve.kill() }
        let (phone, phoneReplica, laptopReplica) = (pair.first, pair.firstReplica, pair.secondReplica)
        let note = ProvenanceNote.create(in: phone, id: 1, text: "draft", pages: 1)
        try await pair.syncBoth()
        let laptopNote = try #require(pair.second.get(id: 1) as ProvenanceNote?)
        note.text = "phone"
        laptopNote.text = "laptop"
        let phoneWrite = try #require(note.history(of: .text, as: String.self).last?.timestamp)
        let laptopWrite = try #require(laptopNote.history(of: .text, as: String.self).last?.timestamp)
        let kept = laptopWrite > phoneWrite ? "laptop" : "phone"
        // README "Conflicts", from here:
        // (The README sets the replicas up on an in-process server; its sync and loop follow.)
        try await phoneReplica.sync()
        try await laptopReplica.sync()
        try await phoneReplica.sync()
        for conflict in phone.conflicts(of: note) {
            for write in conflict.writes {
                print(write.value, "by replica", write.replica, "at", write.timestamp.date, write.isKept ? "(kept)" : "")
            }
            if let lost = conflict.losingWrites.first {
                phone.restore(lost) // written back as a new write: it wins, on every replica once synced
            }
        }
        // to here.
        #expect(note.text == (kept == "phone" ? "laptop" : "phone"))
        try await pair.syncBoth()
        #expect(laptopNote.text == note.text)
    }
}

/// Records written without provenance (an older Pathbase, an import) are never reported as
/// concurrent; the same writes are once their writers' frontiers say they had not seen them.
@Suite("Conflict provenance of records without it")
struct UnknownProvenanceTests {

    @Test("writes of replicas that recorded no frontier are no conflict", arguments: ProvenanceStore.allCases)
    func unknownProvenance(store: ProvenanceStore) throws {
        let database = try store.make()
        let path = Path(model: 5141, instance: 1, property: 1)
        database.apply(Record(path: .status(model: 5141, instance: 1), timestamp: Timestamp(time: 1_000, replica: 7), value: InstanceStatus.created))
        database.apply(Record(path: path, timestamp: Timestamp(time: 2_000, replica: 7), value: "seven"))
        database.apply(Record(path: path, timestamp: Timestamp(time: 3_000, replica: 8), value: "eight"))
        #expect(database.conflict(at: path) == nil)
        #expect(database.concurrentWrites(at: path).isEmpty)
    }
}
