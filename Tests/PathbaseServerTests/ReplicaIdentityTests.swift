import Foundation
import Pathbase
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

// Model ids 5160–5169: replica identity across copies, moves and restores (issue 60).

@Model(id: 5160)
final class SharedCard {
    @Property(id: 1)
    var title: String

    @Property(id: 2, merge: .counter)
    var likes: Int

    @Property(id: 3, merge: .union)
    var tags: Set<String>
}

/// Issue 60: a database file copied, moved or restored from a backup is a replica of its
/// own. Every write of every copy reaches every replica, and every increment and set
/// addition counts once — through a real `pathbase serve` on SQLite and on PostgreSQL.
// Serialized: most cases start a `pathbase serve` process (on PostgreSQL, with a connection
// pool of its own), which all at once beside the rest of the suite starved the machine.
@Suite("Replica identity: copies, moves and restores", .serialized)
struct ReplicaIdentityTests {

    /// How a file is copied: open, with its `-wal` (what a copy of a running app's container
    /// holds), or closed, the main file alone.
    enum Copy: String, CaseIterable, CustomStringConvertible {
        case withWAL, closedWithoutWAL
        var description: String { rawValue }
    }

    @Test(
        "a copied file writes under an id of its own: both copies' writes, increments and additions reach a fresh replica once",
        arguments: [StoreKind.sqlite, .postgres], Copy.allCases)
    func copiedFile(kind: StoreKind, copy: Copy) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let transport = { HTTPSyncTransport(server: serve.url, token: token) }
        let original = ServerTestFiles.newPath()
        var a: SQLiteDatabase? = try SQLiteDatabase(path: original)
        let first = try #require(a)
        let card = SharedCard.create(in: first, id: 1, title: "shared")
        card.likes += 5
        card.tags.insert("shared")
        try await Replica(database: first, transport: transport()).sync()
        // Written before the copy and not pushed yet: both copies hold it.
        card.likes += 1
        let originalId = first.clock.replica

        let copied = ServerTestFiles.newPath()
        switch copy {
        case .withWAL:
            #expect(FileManager.default.fileExists(atPath: original + "-wal"))
            try FileManager.default.copyItem(atPath: original, toPath: copied)
            try FileManager.default.copyItem(atPath: original + "-wal", toPath: copied + "-wal")
        case .closedWithoutWAL:
            first.close()
            a = nil
            try FileManager.default.copyItem(atPath: original, toPath: copied)
            a = try SQLiteDatabase(path: original)
        }
        let aDatabase = try #require(a)
        let b = try SQLiteDatabase(path: copied)
        #expect(aDatabase.clock.replica == originalId, "the original keeps its id")
        #expect(b.clock.replica != originalId, "the copy takes an id of its own")
        #expect(b.clock.earlierReplicas.contains(originalId), "and keeps the original's as an earlier one")

        // Both write offline.
        let onA = try #require(aDatabase.get(id: 1) as SharedCard?)
        let onB = try #require(b.get(id: 1) as SharedCard?)
        onA.likes += 2
        onA.tags.insert("from a")
        onA.title = "a"
        onB.likes += 3
        onB.tags.insert("from b")
        let replicaA = try Replica(database: aDatabase, transport: transport())
        let replicaB = try Replica(database: b, transport: transport())
        #expect(replicaB.id == b.clock.replica && replicaB.id != replicaA.id)
        for _ in 0 ..< 2 {
            try await replicaA.sync()
            try await replicaB.sync()
        }
        let fresh = InMemoryHistoryDatabase()
        try await Replica(database: fresh, transport: transport()).sync()
        let expectedLikes = 5 + 1 + 2 + 3
        let expectedTags: Set<String> = ["shared", "from a", "from b"]
        for database in [aDatabase, b, fresh] as [any Database] {
            let read = try #require(database.get(id: 1) as SharedCard?)
            #expect(read.likes == expectedLikes, "\(type(of: database))")
            #expect(read.tags == expectedTags, "\(type(of: database))")
            #expect(read.title == "a")
        }
    }

    @Test("a backup restored as a new file gets back the writes synced after it, and its next increments add", arguments: [StoreKind.sqlite, .postgres])
    func restoredBackup(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let transport = { HTTPSyncTransport(server: serve.url, token: token) }
        let path = ServerTestFiles.newPath()
        let backup = ServerTestFiles.newPath()
        do {
            let database = try SQLiteDatabase(path: path)
            let card = SharedCard.create(in: database, id: 1, title: "before the backup")
            card.likes += 5
            card.tags.insert("before")
            try await Replica(database: database, transport: transport()).sync()
            database.close()
        }
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        do {
            let database = try SQLiteDatabase(path: path)
            let card = try #require(database.get(id: 1) as SharedCard?)
            card.likes += 4
            card.tags.insert("after")
            card.title = "after the backup"
            try await Replica(database: database, transport: transport()).sync()
            database.close()
        }
        // The backup restored as a new file (a device restore, or a copy put in place).
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: backup, toPath: path)
        let restored = try SQLiteDatabase(path: path)
        let card = try #require(restored.get(id: 1) as SharedCard?)
        #expect(card.title == "before the backup")
        // Written before the restored file syncs.
        card.likes += 1
        card.tags.insert("restored")
        let replica = try Replica(database: restored, transport: transport())
        let report = try await replica.sync()
        #expect(report.pulled > 0, "the writes synced after the backup come back: \(report)")
        #expect(card.title == "after the backup")
        try await replica.sync()
        let fresh = InMemoryHistoryDatabase()
        try await Replica(database: fresh, transport: transport()).sync()
        for database in [restored, fresh] as [any Database] {
            let read = try #require(database.get(id: 1) as SharedCard?)
            #expect(read.likes == 10, "\(type(of: database))")
            #expect(read.tags == ["before", "after", "restored"], "\(type(of: database))")
            #expect(read.title == "after the backup")
        }
    }

    @Test(
        "a backup written over the live file in place is seen by the server: the push is refused, the file takes a new id, nothing is counted twice",
        arguments: [StoreKind.sqlite, .postgres])
    func backupWrittenInPlace(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let transport = { HTTPSyncTransport(server: serve.url, token: token) }
        let path = ServerTestFiles.newPath()
        do {
            let database = try SQLiteDatabase(path: path)
            let card = SharedCard.create(in: database, id: 1, title: "before the backup")
            card.likes += 5
            card.tags.insert("before")
            try await Replica(database: database, transport: transport()).sync()
            database.close()
        }
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        let originalId: UInt32
        do {
            let database = try SQLiteDatabase(path: path)
            originalId = database.clock.replica
            let card = try #require(database.get(id: 1) as SharedCard?)
            card.likes += 4
            card.tags.insert("after")
            try await Replica(database: database, transport: transport()).sync()
            database.close()
        }
        // The bytes written over the same file: its device and file number stay.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: backup)
        try handle.close()
        let restored = try SQLiteDatabase(path: path)
        #expect(restored.clock.replica == originalId, "the file cannot tell")
        let card = try #require(restored.get(id: 1) as SharedCard?)
        card.likes += 1
        card.tags.insert("restored")
        let replica = try Replica(database: restored, transport: transport())
        try await replica.sync()
        #expect(replica.id != originalId, "the server's answer made it take a new id")
        #expect(restored.clock.replica == replica.id)
        try await replica.sync()
        let fresh = InMemoryHistoryDatabase()
        try await Replica(database: fresh, transport: transport()).sync()
        for database in [restored, fresh] as [any Database] {
            let read = try #require(database.get(id: 1) as SharedCard?)
            #expect(read.likes == 10, "\(type(of: database))")
            #expect(read.tags == ["before", "after", "restored"], "\(type(of: database))")
        }
        // Reopened (another process would be): the new id is the file's.
        restored.close()
        let reopened = try SQLiteDatabase(path: path)
        #expect(reopened.clock.replica == replica.id)
    }

    @Test("a file renamed keeps its id; one moved by copying keeps working under a new one; nothing is lost either way")
    func movedFile() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.sqlite").path
        let id: UInt32
        do {
            let database = try SQLiteDatabase(path: path)
            SharedCard.create(in: database, id: 1, title: "here").likes += 1
            try await Replica(database: database, transport: InProcessTransport(server: server, token: token)).sync()
            id = database.clock.replica
            database.close()
        }
        let renamed = folder.appendingPathComponent("renamed.sqlite").path
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        do {
            let database = try SQLiteDatabase(path: renamed)
            #expect(database.clock.replica == id, "a rename keeps the file and its id")
            (database.get(id: 1) as SharedCard?)?.likes += 1
            let report = try await Replica(database: database, transport: InProcessTransport(server: server, token: token)).sync()
            #expect(report.acknowledged > 0)
            database.close()
        }
        let elsewhere = folder.appendingPathComponent("elsewhere.sqlite").path
        try FileManager.default.copyItem(atPath: renamed, toPath: elsewhere)
        try FileManager.default.removeItem(atPath: renamed)
        let moved = try SQLiteDatabase(path: elsewhere)
        #expect(moved.clock.replica != id, "moved by a copy: a new file, a new id")
        (moved.get(id: 1) as SharedCard?)?.likes += 1
        try await Replica(database: moved, transport: InProcessTransport(server: server, token: token)).sync()
        let fresh = InMemoryHistoryDatabase()
        try await Replica(database: fresh, transport: InProcessTransport(server: server, token: token)).sync()
        #expect((fresh.get(id: 1) as SharedCard?)?.likes == 3)
        #expect((moved.get(id: 1) as SharedCard?)?.likes == 3)
    }

    @Test("records pulled under one of the file's ids that it does not hold are applied, and never pushed back")
    func pulledOwnRecords() async throws {
        // An export of a synced replica imported into a new file: the file adopts the
        // writers of its records, and must still get their later writes.
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let writer = try SQLiteDatabase(path: ServerTestFiles.newPath())
        SharedCard.create(in: writer, id: 1, title: "first")
        let writerReplica = try Replica(database: writer, transport: InProcessTransport(server: server, token: token))
        try await writerReplica.sync()
        let export = try writer.exportRecords()
        let importedPath = ServerTestFiles.newPath()
        do {
            // A file made by an older Pathbase from the export: records, no identity yet.
            let file = try SQLiteDatabase(path: importedPath)
            try file.importRecords(from: export)
            file.close()
            let tool = try await ChildProcess.run("/usr/bin/sqlite3", [importedPath, "DELETE FROM pathbase_meta WHERE key IN ('replica', 'earlierReplicas', 'replicaFile')"])
            #expect(tool.status == 0, "\(tool.errors)")
        }
        let imported = try SQLiteDatabase(path: importedPath)
        let replica = try Replica(database: imported, transport: InProcessTransport(server: server, token: token))
        try await replica.sync()
        (writer.get(id: 1) as SharedCard?)?.title = "later"
        try await writerReplica.sync()
        let report = try await replica.sync()
        #expect(report.pulled == 1, "\(report)")
        #expect((imported.get(id: 1) as SharedCard?)?.title == "later")
        #expect(replica.pendingRecords().isEmpty, "what came from the server is not pushed back")
        let again = try await replica.sync()
        #expect(again.pushed == 0 && again.pulled == 0, "\(again)")
    }

    /// Delivers every push and pull; the answer of the first push is lost on the way back.
    struct LosingFirstAnswer: SyncTransport {
        let inner: InProcessTransport
        private let lost = Locked(false)
        init(_ inner: InProcessTransport) { self.inner = inner }

        func push(_ request: PushRequest) async throws -> PushResponse {
            let response = try await inner.push(request)
            let losing = lost.withLock { lost in
                defer { lost = true }
                return !lost
            }
            if losing { throw URLError(.networkConnectionLost) }
            return response
        }

        func pull(_ request: PullRequest) async throws -> PullResponse { try await inner.pull(request) }
    }

    @Test("a record stored by a push whose answer was lost, then pruned from the history (superseded), is no sign of another file: the next push is taken, the id kept")
    func prunedAfterLostAnswer() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let file = try SQLiteDatabase(path: ServerTestFiles.newPath())
        let replica = try Replica(database: file, transport: LosingFirstAnswer(InProcessTransport(server: server, token: token)))
        let card = SharedCard.create(in: file, id: 1, title: "first")
        card.likes += 2
        await #expect(throws: URLError.self) { try await replica.push() }
        // Superseded, then pruned straight through the database (past the outbox).
        card.title = "second"
        card.likes += 3
        let id = replica.id
        try file.prune(before: Timestamp(latestAt: Date()))
        let report = try await replica.sync()
        #expect(report.rejected == 0 && report.acknowledged == report.pushed, "\(report)")
        #expect(replica.id == id, "the replica took a new id for its own pruned record")

        let reader = InMemoryHistoryDatabase()
        try await Replica(database: reader, transport: InProcessTransport(server: server, token: token)).sync()
        let read = try #require(reader.get(id: 1) as SharedCard?)
        #expect(read.title == "second" && read.likes == 5, "\(read.title) \(read.likes)")
    }

    @Test("a push under another replica's id is refused whole with a reason, and changes nothing", arguments: [StoreKind.sqlite, .postgres])
    func pushUnderAnotherReplicasId(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let owner = try SQLiteDatabase(path: ServerTestFiles.newPath())
        SharedCard.create(in: owner, id: 1, title: "mine")
        let ownerReplica = try Replica(database: owner, transport: HTTPSyncTransport(server: serve.url, token: token))
        try await ownerReplica.sync()
        let before = try await HTTPSyncTransport(server: serve.url, token: token).pull(PullRequest(after: 0, limit: 1000))

        // Another client claims the owner's id and a watermark before its records.
        let forged = SyncRecord.Key(path: Path(model: 5160, instance: 1, property: 1), timestamp: Timestamp(time: Timestamp(latestAt: Date()).time, counter: 0, replica: ownerReplica.id))
        let record = try SyncRecord(Record(path: forged.path, timestamp: forged.timestamp, value: "not mine"))
        let answer = try await HTTPSyncTransport(server: serve.url, token: token).push(
            PushRequest(replica: ownerReplica.id, records: [record], continuity: .init(acknowledgedThrough: nil)))
        let reason = try #require(answer.forked)
        #expect(reason.contains("another file"))
        #expect(answer.acknowledged.isEmpty && answer.rejected.isEmpty)
        let after = try await HTTPSyncTransport(server: serve.url, token: token).pull(PullRequest(after: 0, limit: 1000))
        #expect(after.records == before.records, "nothing was stored")
        // The owner goes on as before.
        (owner.get(id: 1) as SharedCard?)?.title = "still mine"
        let report = try await ownerReplica.sync()
        #expect(report.acknowledged == 1, "\(report)")
    }

    @Test("a counter that is set across the whole Int range reads the same on every replica")
    func counterAtTheEnds() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        let a = InMemoryHistoryDatabase()
        let b = InMemoryHistoryDatabase()
        let replicaA = try Replica(database: a, transport: InProcessTransport(server: server, token: token))
        let replicaB = try Replica(database: b, transport: InProcessTransport(server: server, token: token))
        let card = SharedCard.create(in: a, id: 1, title: "")
        try await replicaA.sync()
        try await replicaB.sync()
        let other = try #require(b.get(id: 1) as SharedCard?)
        for value in [Int.max, 0, 1, Int.min, Int.max] {
            card.likes = value
            try await replicaA.sync()
            // Swift's own `+=` traps at Int.max, as on any Int.
            if other.likes < .max { other.likes += 1 } else { other.likes -= 1 }
            try await replicaB.sync()
            try await replicaA.sync()
            #expect(card.likes == other.likes, "after \(value)")
        }
        let fresh = InMemoryHistoryDatabase()
        try await Replica(database: fresh, transport: InProcessTransport(server: server, token: token)).sync()
        #expect((fresh.get(id: 1) as SharedCard?)?.likes == card.likes)
    }
}
