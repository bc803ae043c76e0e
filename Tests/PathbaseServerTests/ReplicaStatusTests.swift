import Foundation
import Observation
import Pathbase
import PathbaseSQLite
import PathbaseServer
import PathbaseTestSupport
import Testing

/// Issue 51, sync progress: the pull response's total from every store, and a replica's
/// status (pending count, last sync, last error, initial-sync progress) followed by a UI
/// while it syncs with a real `pathbase serve`.
@Suite("Replica status: initial-sync progress, last error, pending count")
struct ReplicaStatusTests {

    private func path(_ instance: Int) -> Path { Path(model: 9, instance: instance, property: 1) }

    /// Pushes `count` records to the account from a replica of its own.
    private func seed(_ count: Int, through transport: any SyncTransport, from first: Int = 0) async throws {
        let writer = InMemoryHistoryDatabase()
        let pusher = try Replica(database: writer, transport: transport, batchSize: 1000)
        for instance in first ..< first + count { writer.set(instance, for: path(instance)) }
        let report = try await pusher.sync()
        try #require(report.acknowledged == count, "\(report)")
    }

    /// A transport that notes the replica's status at every pull request (so what a UI
    /// could read between pages), and can drop the total as an older server would.
    private final class NotingTransport: SyncTransport, @unchecked Sendable {
        let base: any SyncTransport
        let dropsTotal: Bool
        let seen = Locked<[ReplicaStatus]>([])
        var monitor: ReplicaMonitor?

        init(_ base: any SyncTransport, dropsTotal: Bool = false) {
            self.base = base
            self.dropsTotal = dropsTotal
        }

        func push(_ request: PushRequest) async throws -> PushResponse { try await base.push(request) }

        func pull(_ request: PullRequest) async throws -> PullResponse {
            if let status = monitor?.status { seen.withLock { $0.append(status) } }
            var response = try await base.pull(request)
            if dropsTotal { response.total = nil }
            return response
        }
    }

    @Test(
        "through a real pathbase serve, progress rises page by page during an initial sync: final == total, complete flips once",
        arguments: [StoreKind.sqlite, .postgres])
    func progressDuringInitialSync(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { serve.kill() }
        let http = HTTPSyncTransport(server: serve.url, token: token)
        try await seed(1200, through: http)

        let transport = NotingTransport(http)
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: transport, pageSize: 100)
        transport.monitor = replica.monitor
        #expect(replica.status.serverTotal == nil && replica.status.initialSyncProgress == nil && !replica.status.isInitialSyncComplete)
        let updates = replica.monitor.updates
        try await replica.sync()

        // Read between pages, before the sync returned: the progress of each page so far.
        let between = transport.seen.current
        #expect(between.count == 12, "\(between.count) pull requests")
        let midway = between.dropFirst().filter { !$0.isInitialSyncComplete }
        #expect(midway.count >= 10, "\(between)")
        #expect(midway.map(\.pulledCount) == (1 ... 11).map { Int64($0 * 100) }, "\(midway.map(\.pulledCount))")
        #expect(midway.allSatisfy { $0.serverTotal == 1200 })
        let fractions = midway.compactMap(\.initialSyncProgress)
        #expect(fractions.count == midway.count && zip(fractions, fractions.dropFirst()).allSatisfy { $0 < $1 } && (fractions.last ?? 1) < 1, "\(fractions)")

        let status = replica.status
        #expect(status.pulledCount == 1200 && status.serverTotal == 1200 && status.initialSyncProgress == 1 && status.isInitialSyncComplete, "\(status)")
        #expect(status.lastSuccessfulSync != nil && status.lastError == nil && status.pendingCount == 0, "\(status)")

        // A later sync with more records on the server: the total follows, the flag stays.
        try await seed(150, through: http, from: 5000)
        try await replica.sync()
        #expect(replica.status.pulledCount == 1350 && replica.status.serverTotal == 1350 && replica.status.isInitialSyncComplete)

        // The stream saw every step in order, and the flag flipped exactly once.
        var states: [ReplicaStatus] = []
        for await state in updates {
            states.append(state)
            if state.pulledCount == 1350, state.lastSuccessfulSync != status.lastSuccessfulSync { break }
        }
        let flags = states.map(\.isInitialSyncComplete)
        #expect(zip(flags, flags.dropFirst()).filter { !$0 && $1 }.count == 1 && flags.last == true, "\(flags)")
        #expect(!zip(flags, flags.dropFirst()).contains { $0 && !$1 })
        let pulled = states.map(\.pulledCount)
        #expect(zip(pulled, pulled.dropFirst()).allSatisfy { $0 <= $1 } && Set(pulled).count >= 13, "\(pulled)")
    }

    @Test(
        "through a real pathbase serve, over a log pathbase compact left with sequence gaps: a fresh replica's initial sync never reports progress above the total or going back, completes, and ends at the server's last sequence with every record it holds",
        arguments: [StoreKind.sqlite, .postgres])
    func progressOverCompactedLog(kind: StoreKind) async throws {
        let store = try await kind.newStoreArguments()
        let token = try ServeProcess.addAccount("alice", store: store)
        let serve = try await ServeProcess(store: store)
        defer { serve.kill() }
        let http = HTTPSyncTransport(server: serve.url, token: token)
        // One writer rewrites an uneven share of 200 paths in six rounds (every path, every
        // 2nd, every 3rd, …): compaction leaves gaps of many lengths.
        let writer = InMemoryHistoryDatabase()
        let pusher = try Replica(database: writer, transport: http, batchSize: 1000)
        var pushed = 0
        for round in 0 ..< 6 {
            var written = 0
            for instance in 0 ..< 200 where instance % (round + 1) == 0 {
                writer.set(round * 1000 + instance, for: path(instance))
                written += 1
            }
            let report = try await pusher.sync()
            try #require(report.acknowledged == written, "round \(round): \(report)")
            pushed += written
        }
        let compacted = try await ServeProcess.run(["compact"] + store + ["--keep-whole", "40"])
        try #require(compacted.status == 0, "\(compacted.errors)")
        // What the server holds now, read page by page.
        var held = 0
        var cursor: Int64 = 0
        for _ in 0 ..< 100 {
            let page = try await http.pull(PullRequest(after: cursor, limit: 100))
            held += page.records.count
            cursor = page.cursor
            if !page.hasMore { break }
        }
        #expect(cursor == Int64(pushed), "the log's last sequence \(cursor), \(pushed) records pushed")
        #expect(compacted.output.contains("\(pushed - held) records removed from 1 account"), "\(compacted.output), \(pushed) pushed, \(held) held")
        try #require(held < pushed - 100, "compaction left \(held) of \(pushed) records: no gaps to cross")

        let transport = NotingTransport(http)
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: transport, pageSize: 25)
        transport.monitor = replica.monitor
        let updates = replica.monitor.updates
        let report = try await replica.sync()
        #expect(report.pulled == held, "\(report), the server holds \(held)")

        // Read between pages: never above the total, never backwards, short of 1 until done.
        let between = transport.seen.current
        #expect(between.count == (held + 24) / 25, "\(between.count) pull requests for \(held) records in pages of 25")
        let pulled = between.map(\.pulledCount)
        #expect(zip(pulled, pulled.dropFirst()).allSatisfy { $0 <= $1 }, "\(pulled)")
        #expect(between.allSatisfy { status in status.serverTotal.map { status.pulledCount <= $0 } ?? true }, "\(between)")
        let midway = between.dropFirst().filter { !$0.isInitialSyncComplete }
        #expect(midway.count >= 5 && midway.allSatisfy { $0.serverTotal == Int64(pushed) }, "\(midway)")
        let fractions = midway.compactMap(\.initialSyncProgress)
        #expect(fractions.count == midway.count && zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 } && fractions.allSatisfy { $0 < 1 }, "\(fractions)")
        print("progressOverCompactedLog \(kind): \(held) of \(pushed) records held, \(between.count) pulls, cursors \(pulled)")
        // Pages of 25 records jumped over gaps: some cursor moved by more than 25.
        #expect(zip(pulled, pulled.dropFirst()).contains { $1 - $0 > 25 }, "no page crossed a gap: \(pulled)")

        let status = replica.status
        #expect(status.isInitialSyncComplete && status.initialSyncProgress == 1, "\(status)")
        #expect(status.pulledCount == Int64(pushed) && status.serverTotal == Int64(pushed), "\(status), the log's last sequence is \(pushed)")
        for instance in 0 ..< 200 {
            let expected: Int? = writer.get(path(instance))
            let read: Int? = database.get(path(instance))
            #expect(read != nil && read == expected, "instance \(instance): \(String(describing: read)), the writer's \(String(describing: expected))")
        }

        // The stream: the same in order, the flag flipped once; a later sync changes nothing.
        var states: [ReplicaStatus] = []
        for await state in updates {
            states.append(state)
            if state.lastSuccessfulSync != nil { break }
        }
        let streamed = states.map(\.pulledCount)
        #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $0 <= $1 } && streamed.last == Int64(pushed), "\(streamed)")
        #expect(states.allSatisfy { status in status.serverTotal.map { status.pulledCount <= $0 } ?? true }, "\(states)")
        let flags = states.map(\.isInitialSyncComplete)
        #expect(zip(flags, flags.dropFirst()).filter { !$0 && $1 }.count == 1 && flags.last == true, "\(flags)")
        #expect(try await replica.sync().pulled == 0)
        #expect(replica.status.pulledCount == Int64(pushed) && replica.status.serverTotal == Int64(pushed) && replica.status.isInitialSyncComplete, "\(replica.status)")
    }

    @Test("every store answers its total cheaply and SyncServer.pull carries it, with pages to follow and without", arguments: StoreKind.allCases)
    func totalFromEveryStore(kind: StoreKind) async throws {
        let store = try await kind.make()
        let token = "token-\(kind)"
        let account = try await store.addAccount(name: "alice", tokenHash: AccessToken.hash(token))
        let other = try await store.addAccount(name: "bob", tokenHash: AccessToken.hash("other"))
        #expect(try await store.latestSequence(of: account) == 0)
        let server = SyncServer(store: store)
        let transport = InProcessTransport(server: server, token: token)
        try await seed(30, through: transport)
        try await seed(7, through: InProcessTransport(server: server, token: "other"))
        #expect(try await store.latestSequence(of: account) == 30)
        #expect(try await store.latestSequence(of: other) == 7)
        for (after, limit) in [(0, 10), (10, 10), (20, 10), (25, 10), (30, 5), (0, 100)] {
            let page = try await transport.pull(PullRequest(after: Int64(after), limit: limit))
            #expect(page.total == 30, "after \(after), limit \(limit): \(String(describing: page.total))")
        }
    }

    @Test("wire format: a response without total (older server) decodes as nil and still completes; an older client reads a new response")
    func olderPeersInteroperate() async throws {
        let new = PullResponse(records: [], cursor: 4, hasMore: false, total: 4)
        let encoded = try JSONEncoder().encode(new)
        #expect(String(decoding: encoded, as: UTF8.self).contains("\"total\":4"))
        struct OlderPullResponse: Codable {
            var records: [SyncRecord]
            var cursor: Int64
            var hasMore: Bool
        }
        let read = try JSONDecoder().decode(OlderPullResponse.self, from: encoded)
        #expect(read.cursor == 4 && !read.hasMore)
        let older = try JSONEncoder().encode(OlderPullResponse(records: [], cursor: 4, hasMore: false))
        #expect(try JSONDecoder().decode(PullResponse.self, from: older) == PullResponse(records: [], cursor: 4, hasMore: false))
        #expect(!String(decoding: try JSONEncoder().encode(PullResponse(records: [], cursor: 4, hasMore: false)), as: UTF8.self).contains("total"))

        // A replica pulling from a server that sends no total: no progress figure, but done.
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        try await seed(25, through: InProcessTransport(server: server, token: t))
        let transport = NotingTransport(InProcessTransport(server: server, token: t), dropsTotal: true)
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: transport, pageSize: 10)
        transport.monitor = replica.monitor
        try await replica.sync()
        #expect(transport.seen.current.map(\.serverTotal) == [nil, nil, nil])
        #expect(transport.seen.current.dropFirst().allSatisfy { $0.initialSyncProgress == nil })
        #expect(replica.status.pulledCount == 25 && replica.status.serverTotal == nil && replica.status.isInitialSyncComplete && replica.status.initialSyncProgress == 1)
    }

    @Test("last error: set when pathbase serve refuses the token, kept in the file, cleared by the next success; pathbase status prints it")
    func lastErrorOnRefusedToken() async throws {
        let (serve, token) = try await StoreKind.sqlite.serveProcess(account: "alice")
        defer { serve.kill() }
        try await seed(3, through: HTTPSyncTransport(server: serve.url, token: token))
        let file = ServerTestFiles.newPath()
        do {
            let database = try SQLiteDatabase(path: file)
            let refused = try Replica(database: database, transport: HTTPSyncTransport(server: serve.url, token: "not-the-token"))
            await #expect(throws: SyncTransportError.refused(status: 401, reason: "The token belongs to no account")) { try await refused.sync() }
            let error = try #require(refused.status.lastError)
            #expect(error.contains("401") || error.localizedCaseInsensitiveContains("token"), "\(error)")
            #expect(refused.status.lastSuccessfulSync == nil && !refused.status.isInitialSyncComplete)

            let printed = try await ServeProcess.run(["status", file])
            #expect(printed.status == 0, "\(printed.errors)")
            #expect(printed.output.contains("last error: \(error)"), "\(printed.output)")
            #expect(printed.output.contains("last sync: never"), "\(printed.output)")

            // Another replica of the same file reads the stored error, and clears it on success.
            let accepted = try Replica(database: database, transport: HTTPSyncTransport(server: serve.url, token: token))
            #expect(accepted.status.lastError == error)
            try await accepted.sync()
            #expect(accepted.status.lastError == nil && accepted.status.lastSuccessfulSync != nil && accepted.status.pulledCount == 3)
            database.close()
        }
        let printed = try await ServeProcess.run(["status", file])
        #expect(printed.output.contains("last error: none"), "\(printed.output)")
        #expect(printed.output.contains("pulled: 3 of 3 (as of the last pull), initial sync complete"), "\(printed.output)")
        #expect(!printed.output.contains("last sync: never"), "\(printed.output)")
    }

    @Test("AutomaticSync: a refused token stops it with the reason in its replica status too")
    func automaticSyncCarriesStatus() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        try await seed(40, through: InProcessTransport(server: server, token: t))
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: t), pageSize: 10)
        let monitor = replica.monitor
        let updates = monitor.updates // from before the first sync
        let good = AutomaticSync(replica: replica, interval: nil)
        defer { good.stop() }
        #expect(good.monitor === monitor)
        var seen: [Int64] = []
        for await status in updates {
            seen.append(status.pulledCount)
            if status.lastSuccessfulSync != nil { break }
        }
        #expect(Set(seen).sorted() == [0, 10, 20, 30, 40] && seen.first == 0 && good.replicaStatus.isInitialSyncComplete, "\(seen)")
        var later: [Int64] = []
        for await status in good.replicaStatuses {
            later.append(status.pulledCount)
            break
        }
        #expect(later == [40])

        let refused = AutomaticSync(replica: try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: "wrong")), interval: nil)
        defer { refused.stop() }
        // The in-process server's refusal is no HTTP status: retried, with the reason kept.
        stateLoop: for await status in refused.states {
            switch status.state {
            case .retrying, .stopped: break stateLoop
            case .idle, .syncing: continue
            }
        }
        #expect(refused.replicaStatus.lastError != nil && refused.monitor.status.lastError == refused.replicaStatus.lastError)
    }

    /// A transport whose requests wait until ``open()``: so a test can follow a sync from
    /// its first page.
    private final class GatedTransport: SyncTransport, Sendable {
        let base: any SyncTransport
        private let opened = Locked(false)

        init(_ base: any SyncTransport) { self.base = base }

        func open() { opened.withLock { $0 = true } }

        private func waitUntilOpen() async throws {
            while !opened.current { try await Task.sleep(for: .milliseconds(5)) }
        }

        func push(_ request: PushRequest) async throws -> PushResponse {
            try await waitUntilOpen()
            return try await base.push(request)
        }

        func pull(_ request: PullRequest) async throws -> PullResponse {
            try await waitUntilOpen()
            return try await base.pull(request)
        }
    }

    @Test("AutomaticSync.states carries the replica's status: pending count, progress page by page while syncing, then idle, complete, nothing pending")
    func automaticSyncStatesCarryProgress() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        try await seed(40, through: InProcessTransport(server: server, token: t))
        let database = InMemoryHistoryDatabase()
        database.set(-1, for: path(1000)) // a local write waiting to be pushed
        let gate = GatedTransport(InProcessTransport(server: server, token: t))
        let sync = AutomaticSync(replica: try Replica(database: database, transport: gate, pageSize: 10), interval: nil)
        defer { sync.stop() }
        let states = sync.states
        gate.open()
        var seen: [AutomaticSync.Status] = []
        for await status in states {
            seen.append(status)
            if case .idle(_?) = status.state { break }
        }
        let first = try #require(seen.first)
        #expect(first.pendingCount == 1 && first.pulledCount == 0 && !first.isInitialSyncComplete, "\(first)")
        // While the state is `syncing`, the replica's part moves page by page.
        let syncing = seen.filter { $0.state == .syncing }
        let pulledWhileSyncing = syncing.map(\.pulledCount)
        #expect(Set(pulledWhileSyncing).isSuperset(of: [10, 20, 30, 40]), "\(pulledWhileSyncing)")
        #expect(syncing.contains { ($0.initialSyncProgress ?? 0) > 0 && ($0.initialSyncProgress ?? 1) < 1 }, "\(syncing)")
        let pulled = seen.map(\.pulledCount)
        #expect(zip(pulled, pulled.dropFirst()).allSatisfy { $0 <= $1 }, "\(pulled)")
        let last = try #require(seen.last)
        #expect(last.isInitialSyncComplete && last.pendingCount == 0 && last.lastSuccessfulSync != nil && last.lastError == nil, "\(last)")
        #expect(last.pulledCount == 41 && last.serverTotal == 41, "\(last)")
        #expect(last.replica == sync.replicaStatus && sync.status.replica == sync.replicaStatus)
    }

    @Test("pending count follows writes (refreshStatus) and pushes")
    func pendingCountFollowsWritesAndPushes() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        let database = InMemoryHistoryDatabase()
        for instance in 0 ..< 4 { database.set(instance, for: path(instance)) }
        let replica = try Replica(database: database, transport: InProcessTransport(server: server, token: t), batchSize: 3)
        #expect(replica.status.pendingCount == 4)
        for instance in 4 ..< 9 { database.set(instance, for: path(instance)) }
        #expect(replica.status.pendingCount == 4) // counted when asked
        replica.refreshStatus()
        #expect(replica.status.pendingCount == 9)
        let counts = Locked<[Int]>([])
        let updates = replica.monitor.updates
        let watcher = Task {
            for await status in updates {
                counts.withLock { $0.append(status.pendingCount) }
                if status.pendingCount == 0 { return }
            }
        }
        try await replica.push()
        await watcher.value
        #expect(replica.status.pendingCount == 0)
        #expect(counts.current == [9, 6, 3, 0], "\(counts.current)")
        database.set(100, for: path(1))
        replica.refreshStatus()
        #expect(replica.status.pendingCount == 1)
        try await replica.sync()
        #expect(replica.status.pendingCount == 0)
    }

    @Test("Observation: withObservationTracking hears each page of a pull")
    func observationTracking() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        try await seed(30, through: InProcessTransport(server: server, token: t))
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: t), pageSize: 10)
        let changes = Locked(0)
        let monitor = replica.monitor
        @Sendable func track() {
            withObservationTracking {
                _ = monitor.status
            } onChange: {
                changes.withLock { $0 += 1 }
                track()
            }
        }
        track()
        try await replica.pull()
        #expect(changes.current >= 3, "\(changes.current)")
    }

    @Test("stress: threads read the status and follow its stream while a replica syncs 3000 records")
    func readersWhileSyncing() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let t = try await server.addAccount(named: "alice")
        try await seed(3000, through: InProcessTransport(server: server, token: t))
        let replica = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: t), pageSize: 50)
        let monitor = replica.monitor
        let done = Locked(false)
        let problems = Locked<[String]>([])
        let readers = (0 ..< 4).map { reader in
            Thread.detachNewThreadWithResult {
                var last: Int64 = 0
                var reads = 0
                while !done.current || reads == 0 {
                    let status = monitor.status
                    if status.pulledCount < last { problems.withLock { $0.append("reader \(reader): \(status.pulledCount) after \(last)") } }
                    if let total = status.serverTotal, status.pulledCount > total { problems.withLock { $0.append("reader \(reader): \(status)") } }
                    last = status.pulledCount
                    reads += 1
                }
                return reads
            }
        }
        let stream = monitor.updates // subscribed before the sync starts
        let streamed = Task {
            var count = 0
            for await status in stream {
                count += 1
                if status.isInitialSyncComplete { break }
            }
            return count
        }
        try await replica.sync()
        done.withLock { $0 = true }
        for reader in readers { #expect(await reader.value > 0) }
        #expect(await streamed.value >= 60)
        #expect(problems.current.isEmpty, "\(problems.current)")
        #expect(replica.status.pulledCount == 3000 && replica.status.isInitialSyncComplete)
    }
}

extension Thread {
    /// Runs `body` on a new thread; its result, awaited.
    fileprivate static func detachNewThreadWithResult<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Task<Result, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: body()) }
            }
        }
    }
}
