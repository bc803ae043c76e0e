import Foundation
import Pathbase
import PathbasePostgres
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Deterministic convergence simulation: replicas edit (values, statuses, editing contexts,
/// undo, Codable structs, structs with generated ids, batches that throw, properties with
/// every merge policy) and prune their history, a network loses, repeats, delays and replays messages, a replica crashes
/// between push and acknowledgement, the file of a replica is copied (a second device writing beside it) or an older
/// image of it restored after its later writes synced, the server compacts its log and restarts (on SQLite, or on PostgreSQL);
/// after one clean sync round all hold the same state, nothing written is missing from the
/// server, nothing written by a batch that threw is anywhere, every handle reads what its
/// database holds, and live results equal a fresh fetch. Per merge policy: every replica's
/// counter is the sum of every increment made, its `.max` / `.min` the largest / smallest
/// value written, and its `.union` set holds every element added and not removed.
///
/// Every schedule is fixed by its seed, which a failure prints. Replay one (on both
/// storages) with `PATHBASE_SIMULATION_SEED=<seed> scripts/postgres swift test --filter
/// ConvergenceSimulation`; run more with `PATHBASE_SIMULATION_SCHEDULES=<count>` (SQLite)
/// and `PATHBASE_SIMULATION_POSTGRES_SCHEDULES=<count>`. (Timestamps follow the wall clock, so a
/// replay makes the same choices, not the same timestamps.)
@Suite("Convergence simulation")
struct ConvergenceSimulationTests {

    static let firstSeed: UInt64 = 0x5EED_0000

    @Test("replicas and server converge under lossy, repeating, reordering networks, crashes and restarts")
    func simulate() async throws {
        // 100 keep `swift test` quick; scripts/reliability runs 1000.
        try await simulate(
            on: { _ in .sqlite(path: ServerTestFiles.newPath()) }, named: "sqlite", count: "PATHBASE_SIMULATION_SCHEDULES", default: 100)
    }

    @Test("the same with the server on PostgreSQL: every restart opens a new store on the database")
    func simulateOnPostgres() async throws {
        // One database, an account per schedule. 10 keep `swift test` quick; scripts/reliability runs more.
        let url = try await TestPostgres.newDatabase()
        try await simulate(on: { _ in .postgres(url: url) }, named: "postgres", count: "PATHBASE_SIMULATION_POSTGRES_SCHEDULES", default: 10)
    }

    /// Runs the schedules of the seeds from the environment, each on the server storage `storage` gives.
    /// Prints the measured figures (schedules run to the end, steps taken) as a
    /// `[reliability]` line, which scripts/reliability requires.
    private func simulate(
        on storage: (UInt64) -> ServerStorage, named name: String, count variable: String, default defaultCount: Int
    ) async throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let replay = environment["PATHBASE_SIMULATION_SEED"].flatMap({ UInt64($0) }) {
            seeds = [replay]
        } else {
            let count = try StressSettings.count(variable, default: defaultCount)
            seeds = (0 ..< UInt64(count)).map { Self.firstSeed + $0 }
        }
        let start = Date()
        print("Convergence simulation: seeds \(seeds.first ?? 0) … \(seeds.last ?? 0) (replay one with PATHBASE_SIMULATION_SEED)")
        var steps = 0
        var completed = 0
        var merged = (increments: 0, maximumWrites: 0, minimumWrites: 0, additions: 0, removals: 0, cardChanges: 0)
        var compacted = (times: 0, records: 0)
        var identity = (copies: 0, restores: 0)
        for seed in seeds {
            var schedule = try await Schedule(seed: seed, storage: storage(seed))
            do {
                steps += try await schedule.run()
                completed += 1
                merged.increments += schedule.oracle.increments
                merged.maximumWrites += schedule.oracle.maximumWrites
                merged.minimumWrites += schedule.oracle.minimumWrites
                merged.additions += schedule.oracle.additions
                merged.removals += schedule.oracle.removals
                merged.cardChanges += schedule.oracle.cardChanges
                compacted.times += schedule.compactions
                compacted.records += schedule.compactedRecords
                identity.copies += schedule.copies
                identity.restores += schedule.restores
            } catch {
                Issue.record("schedule \(seed) threw \(error); replay with PATHBASE_SIMULATION_SEED=\(seed)")
            }
            await schedule.finish()
        }
        print("[reliability] simulation.\(name): \(completed) of \(seeds.count) schedules run to convergence, \(steps) steps, \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        // The merge policies' figures, each line its own count (scripts/reliability requires
        // every one non-zero): a schedule runs to convergence only if every replica reads what
        // the oracle computed from the operations issued.
        let converged = "in \(completed) of \(seeds.count) converged schedules"
        print("[reliability] simulation.\(name).counter: \(merged.increments) increments and decrements \(converged); every replica reads their sum")
        print("[reliability] simulation.\(name).max: \(merged.maximumWrites) maximum writes \(converged); every replica reads the largest")
        print("[reliability] simulation.\(name).min: \(merged.minimumWrites) minimum writes \(converged); every replica reads the smallest")
        print(
            "[reliability] simulation.\(name).union: \(merged.additions) additions and \(merged.removals) observed removals \(converged); every replica holds exactly the elements added and not removed"
        )
        print(
            "[reliability] simulation.\(name).collection: \(merged.cardChanges) card saves \(converged); every replica reads each card's counter as the sum of its increments and its set as exactly the elements added and not removed"
        )
        print("[reliability] simulation.\(name).compaction: \(compacted.times) compactions removing \(compacted.records) records \(converged)")
        print(
            "[reliability] simulation.\(name).identity: \(identity.copies) files copied and \(identity.restores) older images restored \(converged); every copy and restored file took an id of its own and lost nothing"
        )
        #expect(completed == seeds.count && steps > 0, "\(completed) of \(seeds.count) schedules completed, \(steps) steps")
        if seeds.count >= 500 {
            // So many schedules make every kind of merged change: a count of 0 means a policy went untested.
            // (Removals of a post's elements are rare: 0 in 300 schedules on 2026-12-01; not required.)
            let counts = [merged.increments, merged.maximumWrites, merged.minimumWrites, merged.additions, merged.cardChanges, identity.copies, identity.restores]
            #expect(counts.allSatisfy { $0 > 0 }, "merged operations per policy: \(counts)")
        }
    }
}

/// Where the simulated server keeps its data.
enum ServerStorage {
    case sqlite(path: String)
    /// A database that schedules share, each with an account of its own.
    case postgres(url: String)

    /// A new store on the data: at the start, and at each restart of the server.
    func open() async throws -> any SyncServerStore {
        switch self {
        case .sqlite(let path): try SQLiteSyncServerStore(path: path)
        case .postgres(let url): try await TestPostgres.store(url: url)
        }
    }
}

/// A failure while the network is unreliable: the replica tries again later.
struct NetworkFailure: Error {}

/// The server the network delivers to; replaced when the server restarts.
final class ServerHandle: @unchecked Sendable {
    // @unchecked: `current` is only touched while holding `lock`.
    private let lock = NSLock()
    private var current: SyncServer
    init(_ server: SyncServer) { current = server }
    var server: SyncServer {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}

/// What happens to one request.
enum Fate: CaseIterable {
    case deliver, loseRequest, loseResponse, duplicate, delay, staleResponse
}

/// The network's decisions, drawn from the schedule's generator.
final class SimulatedNetwork: @unchecked Sendable {
    // @unchecked: every property is only touched while holding `lock`.
    private let lock = NSLock()
    private var generator: SplitMix64
    private var reliable = false
    private var forced: [Fate] = []
    private var delayed: [PushRequest] = []
    private var lastPull: [UInt32: PullResponse] = [:]

    init(seed: UInt64) { generator = SplitMix64(seed: seed ^ 0xA5A5_A5A5) }

    func setReliable(_ value: Bool) { lock.withLock { reliable = value } }

    func force(_ fate: Fate) { lock.withLock { forced = [fate] } }

    func clearForced() { lock.withLock { forced = [] } }

    func fate() -> Fate {
        lock.withLock {
            if !forced.isEmpty { return forced.removeFirst() }
            if reliable { return .deliver }
            let roll = generator.next() % 100
            switch roll {
            case 0 ..< 55: return .deliver
            case 55 ..< 65: return .loseRequest
            case 65 ..< 77: return .loseResponse
            case 77 ..< 87: return .duplicate
            case 87 ..< 94: return .delay
            default: return .staleResponse
            }
        }
    }

    func delay(_ request: PushRequest) { lock.withLock { delayed.append(request) } }

    /// A delayed push, now arriving (out of order).
    func takeDelayed() -> PushRequest? {
        lock.withLock {
            guard !delayed.isEmpty else { return nil }
            return delayed.remove(at: Int(generator.next() % UInt64(delayed.count)))
        }
    }

    func remember(_ response: PullResponse, for replica: UInt32) { lock.withLock { lastPull[replica] = response } }
    func stale(for replica: UInt32) -> PullResponse? { lock.withLock { lastPull[replica] } }
}

/// A transport through the simulated network to whatever server runs now.
struct SimulatedTransport: SyncTransport {
    let network: SimulatedNetwork
    let handle: ServerHandle
    let token: String
    let replica: UInt32

    func push(_ request: PushRequest) async throws -> PushResponse {
        switch network.fate() {
        case .deliver, .staleResponse: return try await handle.server.push(request, token: token)
        case .loseRequest: throw NetworkFailure()
        case .loseResponse:
            _ = try await handle.server.push(request, token: token)
            throw NetworkFailure()
        case .duplicate:
            _ = try await handle.server.push(request, token: token)
            return try await handle.server.push(request, token: token)
        case .delay:
            network.delay(request)
            throw NetworkFailure()
        }
    }

    func pull(_ request: PullRequest) async throws -> PullResponse {
        switch network.fate() {
        case .deliver, .delay:
            let response = try await handle.server.pull(request, token: token)
            network.remember(response, for: replica)
            return response
        case .loseRequest: throw NetworkFailure()
        case .loseResponse:
            _ = try await handle.server.pull(request, token: token)
            throw NetworkFailure()
        case .duplicate:
            _ = try await handle.server.pull(request, token: token)
            return try await handle.server.pull(request, token: token)
        case .staleResponse:
            if let old = network.stale(for: replica) { return old }
            return try await handle.server.pull(request, token: token)
        }
    }
}

/// One simulated schedule: a server on SQLite or PostgreSQL, 3–5 replicas (the first on SQLite, used
/// through a cache on odd seeds; the others in memory: undoable, observed, cached, plain; up to
/// two more on copies of the first one's file), and random steps.
struct Schedule {

    struct Member {
        var history: any HistoryDatabase
        var replica: Replica
        let file: String?
        /// On an observed replica: the items as a screen keeps them, absorbing every change,
        /// pulled ones too.
        var liveItems: LiveCollection<Item>?
    }

    let seed: UInt64
    var generator: SplitMix64
    let network: SimulatedNetwork
    let handle: ServerHandle
    let storage: ServerStorage
    let token: String
    /// The schedule's account on the server.
    let account: AccountID
    var members: [Member] = []
    var clockIds: Set<UInt32> = []
    /// How many structs with generated ids the replicas saved.
    var ticketsMade = 0
    /// How many times the server compacted the log, and how many records that removed.
    var compactions = 0
    var compactedRecords = 0
    /// What the replicas' steps did to the properties with merge policies.
    var oracle = MergeOracle()
    /// Files copied from the first replica's (each a replica of its own), and older images
    /// of it restored in its place.
    var copies = 0
    var restores = 0
    /// The first replica's file as a backup took it: main file and write-ahead log.
    var backup: String?

    init(seed: UInt64, storage: ServerStorage) async throws {
        self.seed = seed
        generator = SplitMix64(seed: seed)
        network = SimulatedNetwork(seed: seed)
        self.storage = storage
        let server = SyncServer(store: try await storage.open())
        let name = "simulated-\(seed)"
        token = try await server.addAccount(named: name)
        guard let account = try await server.store.accountSummaries().first(where: { $0.name == name })?.id else {
            throw CheckFailure("the account \(name) was not stored")
        }
        self.account = account
        handle = ServerHandle(server)
        let count = 3 + Int(generator.next() % 3)
        for index in 0 ..< count {
            let clock = HybridLogicalClock(replica: newClockId())
            let batch = 1 + Int(generator.next() % 4)
            let page = 1 + Int(generator.next() % 4)
            if index == 0 {
                let file = ServerTestFiles.newPath()
                let database = try SQLiteDatabase(path: file, options: .init(clock: clock))
                members.append(Member(history: database, replica: try Replica(database: fileHandle(database), transport: transport(clock.replica), batchSize: batch, pageSize: page), file: file))
            } else {
                let database = InMemoryHistoryDatabase(clock: clock)
                // The app's handle, which its edits and the replica both go through.
                let synced: any Database =
                    switch index {
                    case 1: UndoableDatabase(wrapping: database)
                    case 3: CachedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: 6))
                    case 4: database
                    default: ObservableDatabase(wrapping: database)
                    }
                let liveItems = synced is ObservableDatabase ? try synced.collection(Item.self).live(where: \.count >= 50, sortedBy: [.ascending(\.name)]) : nil
                members.append(
                    Member(history: database, replica: try Replica(database: synced, transport: transport(clock.replica), batchSize: batch, pageSize: page), file: nil, liveItems: liveItems))
            }
        }
    }

    private mutating func newClockId() -> UInt32 {
        while true {
            let id = UInt32(truncatingIfNeeded: generator.next() % UInt64(UInt32.max)) + 1
            if clockIds.insert(id).inserted { return id }
        }
    }

    /// The SQLite replica's handle: the file itself, or (odd seeds) a cache over it.
    private func fileHandle(_ database: SQLiteDatabase) -> any Database {
        seed % 2 == 1 ? CachedDatabase(wrapping: database, cache: MaximumCountCache(maxCount: 6)) : database
    }

    private func transport(_ replica: UInt32) -> SimulatedTransport {
        SimulatedTransport(network: network, handle: handle, token: token, replica: replica)
    }

    private mutating func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }

    /// Runs the steps, then a clean round, then checks; returns the number of steps.
    mutating func run() async throws -> Int {
        // The first replica starts with an element in each post's set, so that the steps'
        // removals find one to remove, on the other replicas once synced: the removals that
        // must reach the replica that added it. (One element: every set change is a record
        // whose value each pull decodes, so more would slow every schedule.)
        for id in MergeSnapshot.instances {
            let element = "start-m0-p\(id)"
            SimulatedPost(database: mergeHandle(0), id: id).tags.insert(element)
            oracle.record(.add(id: id, element))
        }
        let steps = 10 + random(20)
        for step in 0 ..< steps {
            let member = random(members.count)
            let database = members[member].replica.database
            let instance = 1 + random(4)
            let roll = random(166)
            if roll >= 160 {
                try await identityStep(roll - 160)
                continue
            }
            if roll >= 142 {
                try mergeStep(roll - 142, member: member, step: step)
                continue
            }
            switch roll {
            case 136...:
                // A batch that throws (where the handle has batches: undo, the file): nothing
                // of it may stay, here or anywhere it syncs to.
                guard let batches = database as? any BatchDatabase else { break }
                let writes = (0 ... random(3)).map { _ in Path(model: 9, instance: 1 + random(4), property: 1 + 2 * random(2)) }
                do {
                    try batches.batch {
                        for path in writes { database.set("\(Self.doomed)\(step)", for: path) }
                        throw Doomed()
                    }
                } catch is Doomed {}
            case 130 ..< 136:
                // Old history dropped, through the app's handle where it can prune: the newest
                // record of every path stays, so what the replica pushes later still converges.
                let moment = Date().addingTimeInterval(-Double(random(50)) / 1000)
                try ((database as? any PrunableHistoryDatabase) ?? (members[member].history as? any PrunableHistoryDatabase))?.prune(before: moment)
            case 118 ..< 130:
                // A struct with a generated id: replicas hand out ids without talking. (Not
                // through undo, which may take the save back.)
                guard !(database is UndoableDatabase<InMemoryHistoryDatabase>) else { break }
                let tickets = database.collection(Ticket.self)
                try tickets.save(Ticket(id: try tickets.nextId(), maker: member, step: step))
                ticketsMade += 1
            case 112 ..< 118:
                // A Codable struct as the app saves it (fetched, one field changed), replaces
                // or deletes it.
                try saveItem(in: database, id: instance, step: step)
            case 106 ..< 112:
                // The app shows its data: reads through its handle (which a cache keeps).
                for instance in 1 ... 4 {
                    for property in 0 ... 3 { _ = Self.describe(Path(model: 9, instance: instance, property: property), in: database) }
                }
            case 100 ..< 106:
                // Undo writes the earlier values as new records, which sync like any change.
                guard let undoable = database as? UndoableDatabase<InMemoryHistoryDatabase> else { break }
                if random(3) == 0 { undoable.redo() } else { undoable.undo() }
            case 0 ..< 30:
                write(in: database, instance: instance, step: step)
            case 30 ..< 38:
                database.set(InstanceStatus.deleted, for: .status(model: 9, instance: instance))
            case 38 ..< 46:
                database.set(InstanceStatus.created, for: .status(model: 9, instance: instance))
            case 46 ..< 56:
                let context = database.createEditingContext()
                for _ in 0 ... random(3) { write(in: context, instance: 1 + random(4), step: step) }
                context.commitChanges()
            case 56 ..< 74:
                try await tolerateNetwork { try await members[member].replica.sync() }
            case 74 ..< 76:
                // The server compacts the log (issue 49), keeping a few latest records whole:
                // replicas whose cursors are before the horizon pull across it, and writes keep
                // arriving after it; every check below must still hold.
                guard let compacting = handle.server.store as? any CompactingStore else { throw CheckFailure("the store does not compact") }
                compactions += 1
                compactedRecords += try await compacting.compactAll(keepingWhole: Int64(random(8)), batchSize: 1 + random(50)).removed
            case 76 ..< 82:
                try await tolerateNetwork { try await members[member].replica.push() }
            case 82 ..< 88:
                try await tolerateNetwork { try await members[member].replica.pull() }
            case 88 ..< 93:
                if let late = network.takeDelayed() { _ = try await handle.server.push(late, token: token) }
            case 93 ..< 97:
                try await crashDuringPush()
            default:
                await Self.close(handle.server.store)
                handle.server = SyncServer(store: try await storage.open())
            }
        }
        // Late messages may still arrive; then one clean round (twice, so that the first
        // replicas also get what the last ones pushed).
        while let late = network.takeDelayed() { _ = try await handle.server.push(late, token: token) }
        network.setReliable(true)
        // Until a round pushes nothing and leaves nothing pending: the joins replicas write
        // when they pull merged states travel like any record, one round later.
        var rounds = 0
        while true {
            var pushed = 0
            for member in members { pushed += try await member.replica.sync().pushed }
            rounds += 1
            if rounds >= 2, pushed == 0, members.allSatisfy({ $0.replica.pendingRecords(limit: 1).isEmpty }) { break }
            guard rounds < 10 else { throw CheckFailure("replicas still push after \(rounds) clean rounds") }
        }
        try await check()
        return steps
    }

    /// A step with the merged properties: an increment or decrement, a write of the
    /// maximum or minimum, an element added (a name of its own) or removed (one the replica
    /// holds), several in an editing context, or in a batch that throws. Each operation that
    /// took effect goes to the oracle as issued (not as read back).
    /// The handle a member's merged properties are changed through: its database, or the
    /// history under an undo wrapper (see ``mergeStep(_:member:step:)``).
    private func mergeHandle(_ member: Int) -> any Database {
        let synced = members[member].replica.database
        return synced is UndoableDatabase<InMemoryHistoryDatabase> ? members[member].history : synced
    }

    /// Whether a set element is one `member` added.
    private static func isOwn(_ element: String, member: Int) -> Bool {
        element.hasPrefix("m\(member)-") || element.hasPrefix("start-m\(member)-")
    }

    private mutating func mergeStep(_ kind: Int, member: Int, step: Int) throws {
        // Merged values change outside undo: undoing writes earlier values back (an increment
        // taken back, a removed element added again), which the oracle of issued operations
        // does not follow (undo of merged values has its own tests, in MergePolicyTests).
        let handle = mergeHandle(member)
        let post = SimulatedPost(database: handle, id: 1 + random(MergeSnapshot.instances.count))
        switch kind {
        case 0 ..< 6:
            let delta = random(9) - 3
            post.likes += delta
            oracle.record(.increment(id: post.id, by: delta))
        case 6 ..< 8:
            let value = random(1000)
            post.best = value
            oracle.record(.maximum(id: post.id, value))
        case 8 ..< 10:
            let value = random(1000)
            post.lowest = value
            oracle.record(.minimum(id: post.id, value))
        case 12, 16:
            // A card of a collection with merged fields: fetched, changed, saved.
            let cards = try handle.collection(SimulatedCard.self, merge: SimulatedCard.merge)
            var card = try cards.fetch(id: post.id) ?? SimulatedCard(id: post.id, likes: 0, tags: [])
            let delta = random(9) - 3
            card.likes += delta
            var element: String?
            var gone: String?
            if random(3) == 0, let held = card.tags.sorted().first {
                card.tags.remove(held)
                gone = held
            } else {
                element = "card-m\(member)-s\(step)"
                card.tags.insert("card-m\(member)-s\(step)")
            }
            try cards.save(card)
            oracle.record(.card(id: post.id, increment: delta, add: element, remove: gone))
        case 10 ..< 12:
            // Another replica's element whenever it holds one (an observed removal of an
            // addition made elsewhere), else one of its own half the time.
            let held = post.tags.sorted()
            if let element = held.first(where: { !Self.isOwn($0, member: member) }) ?? (random(2) == 0 ? held.first : nil) {
                post.tags.remove(element)
                oracle.record(.remove(id: post.id, element))
            } else {
                post.tags.insert("m\(member)-s\(step)")
                oracle.record(.add(id: post.id, "m\(member)-s\(step)"))
            }
        case 13 ..< 16:
            let context = handle.createEditingContext()
            let edited = SimulatedPost(database: context, id: post.id)
            var operations: [MergeOperation] = []
            for index in 0 ... random(3) {
                switch random(3) {
                case 0:
                    let delta = 1 + random(4)
                    edited.likes += delta
                    operations.append(.increment(id: post.id, by: delta))
                case 1:
                    let value = random(1000)
                    edited.best = value
                    operations.append(.maximum(id: post.id, value))
                default:
                    edited.tags.insert("m\(member)-s\(step)-c\(index)")
                    operations.append(.add(id: post.id, "m\(member)-s\(step)-c\(index)"))
                }
            }
            context.commitChanges()
            // A commit that failed keeps its edits pending (and reports to the handler): only
            // a committed context's operations took effect.
            if !context.hasChanges {
                for operation in operations { oracle.record(operation) }
            }
        default:
            // Nothing of a batch that throws may count, here or anywhere it syncs to: the
            // oracle is told nothing of it.
            guard let batches = handle as? any BatchDatabase else { break }
            do {
                try batches.batch {
                    post.likes += 100
                    post.best = 5000
                    post.lowest = -5000
                    throw Doomed()
                }
            } catch is Doomed {}
        }
    }

    /// Runs a sync step; a simulated network failure is expected (the replica retries
    /// later), anything else fails the schedule.
    private func tolerateNetwork(_ step: () async throws -> SyncReport) async throws {
        do {
            _ = try await step()
        } catch is NetworkFailure {
            return
        }
    }

    private mutating func write(in database: any Database, instance: Int, step: Int) {
        let path = Path(model: 9, instance: instance, property: 1 + random(3))
        if path.property == 2 {
            database.set(random(1000), for: path)
        } else {
            database.set("s\(step)-\(random(1000))", for: path)
        }
    }

    /// The SQLite replica's push reaches the server, the replica crashes before the answer
    /// arrives, and comes back from its file with a new clock.
    private mutating func crashDuringPush() async throws {
        guard let file = members[0].file else { return }
        network.force(.loseResponse)
        try await tolerateNetwork { try await members[0].replica.push() }
        network.clearForced() // unused when nothing was pending
        let clock = HybridLogicalClock(replica: newClockId())
        let database = try SQLiteDatabase(path: file, options: .init(clock: clock))
        let old = members[0].replica
        let replica = try Replica(database: fileHandle(database), transport: transport(clock.replica), batchSize: old.batchSize, pageSize: old.pageSize)
        guard replica.id == old.id else { throw CheckFailure("the replica id changed across a crash: \(old.id) → \(replica.id)") }
        members[0] = Member(history: database, replica: replica, file: file)
    }

    /// The first replica's file copied while open, as `cp` copies it (main file and
    /// write-ahead log) and opened by a new replica with the default clock: a second device
    /// restored from the first one's backup, writing beside it. Or a backup of the file
    /// taken, and later restored in its place as a new file (as a device restore does),
    /// after every write made since reached the server: the restored file must take an id
    /// of its own and get those writes back. Either way no write may be lost and no
    /// increment counted twice: the oracle, knowing nothing of copies, checks the result.
    private mutating func identityStep(_ kind: Int) async throws {
        guard let file = members[0].file else { return }
        switch kind {
        case 0 ..< 2:
            guard copies < 2 else { return }
            let copy = ServerTestFiles.newPath()
            try Self.copyFile(file, to: copy)
            let database = try SQLiteDatabase(path: copy)
            let original = members[0].replica.id
            let replica = try Replica(database: database, transport: transport(database.clock.replica), batchSize: 1 + random(4), pageSize: 1 + random(4))
            guard replica.id != original, database.clock.replica == replica.id else {
                throw CheckFailure("a copy of replica \(original)'s file writes as \(database.clock.replica), syncs as \(replica.id)")
            }
            clockIds.insert(replica.id)
            members.append(Member(history: database, replica: replica, file: copy))
            copies += 1
        case 2 ..< 4:
            let image = backup ?? ServerTestFiles.newPath()
            try Self.copyFile(file, to: image)
            backup = image
        default:
            guard let image = backup else { return }
            // Everything written since the backup reaches the server first: what the
            // restored file must get back. (Writes never synced are lost with the device.)
            network.setReliable(true)
            for attempt in 0... {
                guard !members[0].replica.pendingRecords(limit: 1).isEmpty else { break }
                guard attempt < 50 else { throw CheckFailure("replica \(members[0].replica.id) still has records to push after 50 pushes") }
                _ = try await members[0].replica.push()
            }
            network.setReliable(false)
            let old = members[0].replica
            (members[0].history as? SQLiteDatabase)?.close()
            // A new file (a new file number) renamed over the live one, its log beside it.
            let restored = file + ".restoring"
            try Self.copyFile(image, to: restored)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
            if FileManager.default.fileExists(atPath: restored + "-wal") {
                try FileManager.default.moveItem(atPath: restored + "-wal", toPath: file + "-wal")
            }
            guard rename(restored, file) == 0 else { throw CheckFailure("rename failed: errno \(errno)") }
            let database = try SQLiteDatabase(path: file)
            let replica = try Replica(database: fileHandle(database), transport: transport(database.clock.replica), batchSize: old.batchSize, pageSize: old.pageSize)
            guard replica.id != old.id else { throw CheckFailure("a restored image of replica \(old.id) kept its id") }
            clockIds.insert(replica.id)
            members[0] = Member(history: database, replica: replica, file: file)
            restores += 1
        }
    }

    /// Copies a database file and its write-ahead log (not the shared-memory index), as a
    /// file copy or a backup takes them.
    private static func copyFile(_ source: String, to destination: String) throws {
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: destination + suffix)
            if FileManager.default.fileExists(atPath: source + suffix) {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: destination + suffix)
            }
        }
        try? FileManager.default.removeItem(atPath: destination + "-shm")
    }

    struct CheckFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The newest record of each data path.
    private static func state(of records: [SyncRecord]) -> [Path: SyncRecord] {
        var state: [Path: SyncRecord] = [:]
        for record in records where state[record.path].map({ $0.timestamp < record.timestamp }) ?? true {
            state[record.path] = record
        }
        return state
    }

    /// The values of batches that threw start with this.
    static let doomed = "doomed-"
    struct Doomed: Error {}

    private mutating func check() async throws {
        let server = handle.server
        let log = try await server.store.records(of: account, after: 0, limit: .max).map(\.record)
        if let kept = log.first(where: { "\($0)".contains(Self.doomed) }) {
            throw CheckFailure("the server holds \(kept), written in a batch that threw")
        }
        let serverKeys = Set(log.map(\.key))
        guard serverKeys.count == log.count else { throw CheckFailure("the server stored a record twice") }
        let serverState = Self.state(of: log)
        // Compaction removed a record only where the server keeps a newer one of the same
        // path by the same writer: that record may stay in a replica's history alone.
        var newestByWriter: [String: Timestamp] = [:]
        for record in log {
            let key = "\(record.path)#\(record.timestamp.replica)"
            if newestByWriter[key].map({ $0 < record.timestamp }) ?? true { newestByWriter[key] = record.timestamp }
        }
        func compactedAway(_ record: SyncRecord) -> Bool {
            compactions > 0 && (newestByWriter["\(record.path)#\(record.timestamp.replica)"].map { $0 > record.timestamp } ?? false)
        }
        for (index, member) in members.enumerated() {
            let records = try member.history.records().filter { $0.path.model != Replica.stateModel }.map(SyncRecord.init)
            if let kept = records.first(where: { "\($0)".contains(Self.doomed) }) {
                throw CheckFailure("replica \(index) holds \(kept), written in a batch that threw")
            }
            if let lost = records.first(where: { !serverKeys.contains($0.key) && !compactedAway($0) }) {
                throw CheckFailure("replica \(index) holds \(lost), which the server does not have")
            }
            let state = Self.state(of: records)
            guard state == serverState else {
                let differing = Set(state.keys).union(serverState.keys).sorted().filter { state[$0] != serverState[$0] }
                throw CheckFailure(
                    "replica \(index) differs from the server at \(differing.prefix(3).map { "\($0): \(state[$0]?.description ?? "nothing") vs \(serverState[$0]?.description ?? "nothing")" })")
            }
            // What the app reads through its handle (a cache, undo, observation) is what the
            // database holds.
            for path in serverState.keys where Self.describe(path, in: member.replica.database) != Self.describe(path, in: member.history) {
                throw CheckFailure("replica \(index) reads \(Self.describe(path, in: member.replica.database)) through its handle where it holds \(Self.describe(path, in: member.history))")
            }
            // The collection decodes the same structs through every handle.
            let items = try member.replica.database.collection(Item.self).fetch().sorted { $0.id < $1.id }
            let firstItems = try members[0].replica.database.collection(Item.self).fetch().sorted { $0.id < $1.id }
            guard items == firstItems else { throw CheckFailure("replica \(index) fetches \(items), replica 0 \(firstItems)") }
            let notes = try member.replica.database.collection(Note.self).fetch().sorted { $0.id < $1.id }
            let firstNotes = try members[0].replica.database.collection(Note.self).fetch().sorted { $0.id < $1.id }
            guard notes == firstNotes else { throw CheckFailure("replica \(index) fetches \(notes), replica 0 \(firstNotes)") }
            if let live = member.liveItems {
                let fetched = try member.replica.database.collection(Item.self).fetch(where: \.count >= 50, sortedBy: [.ascending(\.name)])
                guard live.results.map(\.id) == fetched.map(\.id), Set(live.results.map(\.id)) == Set(fetched.map(\.id)) else {
                    throw CheckFailure("replica \(index) shows live \(live.results), fetches \(fetched)")
                }
            }
            // Two replicas never handed out one id: every struct saved is there, apart.
            let tickets = try member.replica.database.collection(Ticket.self).count()
            guard tickets == ticketsMade else { throw CheckFailure("replica \(index) holds \(tickets) of the \(ticketsMade) structs saved with generated ids") }
            let merged = MergeSnapshot(member.replica.database)
            let firstLikes = MergeSnapshot(members[0].replica.database).likes
            guard merged.likes == firstLikes else { throw CheckFailure("replica \(index) reads counters \(merged.likes), replica 0 \(firstLikes)") }
            if let mismatch = oracle.mismatch(in: merged) {
                throw CheckFailure("replica \(index) reads \(mismatch)")
            }
            guard member.replica.pendingRecords().isEmpty, member.replica.rejectedRecords().isEmpty else {
                throw CheckFailure("replica \(index) still has records in its outbox: \(member.replica.pendingRecords(limit: 3)) \(member.replica.rejectedRecords())")
            }
        }
    }

    /// A struct of a Codable collection, whose fields sync as separate paths.
    struct Item: Codable, Identifiable, Equatable {
        var id: Int
        var name: String
        var count: Int
    }

    private mutating func saveItem(in database: any Database, id: Int, step: Int) throws {
        let items = database.collection(Item.self)
        switch random(10) {
        case 0:
            try items.delete(id: id)
        case 2:
            // A struct with a String id: its instance is a hash of the id, the same everywhere.
            try database.collection(Note.self).save(Note(id: "note-\(id)", text: "t\(step)"))
        case 1:
            try items.replace(Item(id: id, name: "r\(step)", count: random(100)))
        default:
            var item = try items.fetch(id: id) ?? Item(id: id, name: "", count: 0)
            if random(2) == 0 { item.name = "n\(step)" } else { item.count = random(100) }
            try items.save(item)
        }
    }

    struct Note: Codable, Identifiable, Equatable {
        var id: String
        var text: String
    }

    /// A struct saved once, with an id from ``CodableCollection/nextId()``.
    struct Ticket: Codable, Identifiable, Equatable {
        var id: Int
        var maker: Int
        var step: Int
    }

    /// A path's current value, read as each type the schedule writes.
    private static func describe(_ path: Path, in database: any Database) -> String {
        "\(path): \(String(describing: database.get(path) as Int?)) \(String(describing: database.get(path) as String?)) \(String(describing: database.get(path) as InstanceStatus?))"
    }

    /// Closes the server's store and removes the schedule's files.
    func finish() async {
        await Self.close(handle.server.store)
        var files = members.compactMap(\.file) + [backup].compactMap { $0 }
        if case .sqlite(let path) = storage { files.append(path) }
        for file in files {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
        }
    }

    /// A PostgreSQL store's connections closed before the next store opens (a restarted
    /// server process lets go of its own); a SQLite store closes when released.
    private static func close(_ store: any SyncServerStore) async {
        await (store as? PostgresSyncServerStore)?.close()
    }
}
