import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import Testing

@Model(id: 2090)
final class RelayPrinter {
    @Property(id: 1)
    var printed: [String]

    @Command(id: 2)
    func print(text: String) {
        printed.append(text)
    }

    @Command(id: 3)
    func jam() throws {
        throw PrinterJam()
    }
}

struct PrinterJam: Error {}

@Suite("Commands relayed through the server to the replica that owns the instance")
struct CommandRelayTests {

    private func modelMap(_ model: ModelKey) -> (any ModelProtocol.Type)? {
        model == RelayPrinter.modelId ? RelayPrinter.self : nil
    }

    @Test("a command waits on the server until the owner connects, runs there once, and its answer and changes reach the sender", arguments: StoreKind.allCases)
    func relayToOwner(store: StoreKind) async throws {
        let server = SyncServer(store: try await store.make())
        let token = try await server.addAccount(named: "office")
        let transport = InProcessTransport(server: server, token: token)
        let ownerFile = InMemoryHistoryDatabase()
        let owner = try Replica(database: ownerFile, transport: transport)
        let phoneFile = InMemoryHistoryDatabase()
        let phone = try Replica(database: phoneFile, transport: transport)

        RelayPrinter.create(in: ownerFile, id: 1, printed: [])
        try await owner.sync()
        try await phone.sync()
        let printer = try #require(phoneFile.get(id: 1) as RelayPrinter?)
        #expect(phone.owner(of: RelayPrinter.modelId, instance: 1) == owner.owner(of: RelayPrinter.modelId, instance: 1))

        let ticket = try await phone.send(printer.printCommand(text: "hello"))
        #expect(try await phone.result(of: ticket) == nil) // the owner has not connected
        #expect(try await phone.runReceivedCommands(modelMap: modelMap) == 0) // not for the phone

        #expect(try await owner.runReceivedCommands(modelMap: modelMap) == 1)
        #expect((ownerFile.get(id: 1) as RelayPrinter?)?.printed == ["hello"])
        #expect(try await owner.runReceivedCommands(modelMap: modelMap) == 0) // answered once
        #expect(try await phone.result(of: ticket) == true)

        try await owner.sync()
        try await phone.sync()
        #expect(printer.printed == ["hello"])
    }

    @Test("a command that throws or names a missing instance comes back as the owner's SyncError", arguments: StoreKind.allCases)
    func failuresComeBack(store: StoreKind) async throws {
        let server = SyncServer(store: try await store.make())
        let token = try await server.addAccount(named: "office")
        let transport = InProcessTransport(server: server, token: token)
        let ownerFile = InMemoryHistoryDatabase()
        let owner = try Replica(database: ownerFile, transport: transport)
        let phone = try Replica(database: InMemoryHistoryDatabase(), transport: transport)
        let printer = RelayPrinter.create(in: ownerFile, id: 1, printed: [])

        let jam = try await phone.send(printer.jamCommand(), to: owner.id)
        let missing = try await phone.send(RelayPrinter(database: ownerFile, id: 99).printCommand(text: "x"), to: owner.id)
        #expect(try await owner.runReceivedCommands(modelMap: modelMap) == 2)
        await #expect {
            try await phone.result(of: jam)
        } throws: { error in
            guard case SyncError.commandFailed = error else { return false }
            return true
        }
        await #expect(throws: SyncError.unknownInstance(model: RelayPrinter.modelId, instance: 99)) {
            try await phone.result(of: missing)
        }
        #expect(printer.printed.isEmpty)
    }

    @Test("the relay over HTTP: AutomaticSync runs waiting commands and pushes their changes; other accounts see nothing; bad tickets get 404", arguments: StoreKind.allCases)
    func overHTTP(store: StoreKind) async throws {
        let server = SyncServer(store: try await store.make())
        let office = try await server.addAccount(named: "office")
        let stranger = try await server.addAccount(named: "stranger")
        try await withHTTPServer(server) { url in
            let ownerFile = ObservableDatabase(wrapping: try SQLiteDatabase(path: ServerTestFiles.newPath()))
            let ownerReplica = try Replica(database: ownerFile, transport: HTTPSyncTransport(server: url, token: office))
            let ownerId = ownerReplica.id
            RelayPrinter.create(in: ownerFile, id: 1, printed: [])
            try await ownerReplica.sync()

            let phoneFile = InMemoryHistoryDatabase()
            let phone = try Replica(database: phoneFile, transport: HTTPSyncTransport(server: url, token: office))
            try await phone.sync()
            let printer = try #require(phoneFile.get(id: 1) as RelayPrinter?)
            let ticket = try await phone.send(printer.printCommand(text: "from the phone"))

            // Another account can neither read the command nor its answer.
            let strangerTransport = HTTPSyncTransport(server: url, token: stranger)
            #expect(try await strangerTransport.inbox(CommandInboxRequest(replicas: [ownerId], limit: 10)).commands.isEmpty)
            await #expect(throws: SyncTransportError.refused(status: 404, reason: "There is no command \(ticket.id) for this replica in this account")) {
                try await strangerTransport.result(of: ticket)
            }
            await #expect(throws: SyncTransportError.refused(status: 404, reason: "There is no command \(ticket.id) for this replica in this account")) {
                try await strangerTransport.answer(CommandAnswer(id: ticket.id, replica: ownerId, response: Data()))
            }

            ModelRegistry.shared.register(RelayPrinter.self)
            let sync = AutomaticSync(replica: ownerReplica, interval: .milliseconds(20), debounce: .zero)
            defer { sync.stop() }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await phone.result(of: ticket) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await phone.result(of: ticket) == true)
            #expect((ownerFile.get(id: 1) as RelayPrinter?)?.printed == ["from the phone"])
            while printer.printed.isEmpty, ContinuousClock.now < deadline {
                try await phone.sync()
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(printer.printed == ["from the phone"])
        }
    }

    @Test("sending without a known owner, or over a transport that cannot relay, fails with a reason")
    func sendingFailures() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "office")
        let database = InMemoryHistoryDatabase()
        let replica = try Replica(database: database, transport: InProcessTransport(server: server, token: token))
        let unknown = RelayPrinter(database: database, id: 5)
        await #expect(throws: ReplicaError.unknownOwner(model: RelayPrinter.modelId, instance: 5)) {
            try await replica.send(unknown.printCommand(text: "x"))
        }
        let plain = try Replica(database: database, transport: PushPullOnly(base: InProcessTransport(server: server, token: token)))
        await #expect(throws: ReplicaError.commandRelayUnsupported(transport: "PushPullOnly")) {
            try await plain.send(unknown.printCommand(text: "x"), to: 1)
        }
        await #expect(throws: SyncServerError.commandTooLarge(size: SyncServer.maximumCommandSize + 1, maximum: SyncServer.maximumCommandSize)) {
            try await server.relay(CommandRelayRequest(sender: 1, target: 2, message: Data(count: SyncServer.maximumCommandSize + 1)), token: token)
        }
        await #expect(throws: SyncServerError.invalidInbox) {
            try await server.inbox(CommandInboxRequest(replicas: [], limit: 5), token: token)
        }
    }
}

extension CommandRelayTests {

    private func request(_ sender: UInt32, to target: UInt32, _ text: String) -> CommandRelayRequest {
        CommandRelayRequest(sender: sender, target: target, message: Data(text.utf8))
    }

    @Test(
        "the store's queue: commands wait for their target until answered (fetched again until then), oldest first up to the limit; the first answer is kept; other accounts see nothing",
        arguments: StoreKind.allCases)
    func queueSemantics(kind: StoreKind) async throws {
        let store = try await kind.makeCommandQueue()
        let office = try await store.addAccount(name: "office", tokenHash: [1])
        let home = try await store.addAccount(name: "home", tokenHash: [2])
        let first = try await store.enqueue(request(1, to: 2, "first"), in: office)
        let forOther = try await store.enqueue(request(1, to: 3, "for 3"), in: office)
        let second = try await store.enqueue(request(4, to: 2, "second"), in: office)
        #expect(Set([first, forOther, second]).count == 3)
        #expect(first < second)

        // At least once: until the target answers, every fetch returns the command again.
        for _ in 0 ..< 2 {
            let waiting = try await store.waitingCommands(for: [2], in: office, limit: 10)
            #expect(
                waiting == [
                    RelayedCommand(id: first, sender: 1, target: 2, message: Data("first".utf8)),
                    RelayedCommand(id: second, sender: 4, target: 2, message: Data("second".utf8))
                ])
        }
        #expect(try await store.waitingCommands(for: [2], in: office, limit: 1).map(\.id) == [first])
        #expect(try await store.waitingCommands(for: [2, 3], in: office, limit: 10).map(\.id) == [first, forOther, second])
        #expect(try await store.waitingCommands(for: [2, 3], in: home, limit: 10).isEmpty)

        #expect(try await store.response(to: first, in: office) == nil)
        try await store.answer(first, by: 2, response: Data("done".utf8), in: office)
        try await store.answer(first, by: 2, response: Data("again".utf8), in: office) // a repeated answer
        #expect(try await store.response(to: first, in: office) == Data("done".utf8))
        #expect(try await store.waitingCommands(for: [2], in: office, limit: 10).map(\.id) == [second])

        // Only the target answers, only within its account; unknown numbers are refused.
        await #expect(throws: SyncServerError.unknownCommand(second)) {
            try await store.answer(second, by: 3, response: Data(), in: office)
        }
        await #expect(throws: SyncServerError.unknownCommand(second)) {
            try await store.answer(second, by: 2, response: Data(), in: home)
        }
        await #expect(throws: SyncServerError.unknownCommand(first)) {
            try await store.response(to: first, in: home)
        }
        await #expect(throws: SyncServerError.unknownCommand(999_999)) {
            try await store.response(to: 999_999, in: office)
        }
        #expect(try await store.response(to: second, in: office) == nil)
        await #expect(throws: SyncServerError.unknownAccount(AccountID(rawValue: 999))) {
            try await store.enqueue(request(1, to: 2, "x"), in: AccountID(rawValue: 999))
        }
    }

    @Test(
        "several servers on one database relay together: commands enqueued concurrently through each get distinct numbers, the target's inbox on any server lists each once in order, an answer through one is read through another",
        arguments: StoreKind.persistent)
    func sharedQueue(kind: StoreKind) async throws {
        let queues = try await kind.makeShared(count: 3).map(StoreKind.commandQueue)
        let account = try await queues[0].addAccount(name: "office", tokenHash: [1])
        let perQueue = 40
        let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for (index, queue) in queues.enumerated() {
                group.addTask {
                    var ids: [Int64] = []
                    for n in 0 ..< perQueue {
                        ids.append(try await queue.enqueue(CommandRelayRequest(sender: UInt32(index), target: 9, message: Data("\(index)-\(n)".utf8)), in: account))
                    }
                    return ids
                }
            }
            var all: [Int64] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(Set(ids).count == queues.count * perQueue)
        for queue in queues {
            let waiting = try await queue.waitingCommands(for: [9], in: account, limit: 500)
            #expect(waiting.map(\.id) == ids.sorted())
        }
        let id = try #require(ids.first)
        try await queues[1].answer(id, by: 9, response: Data("ok".utf8), in: account)
        #expect(try await queues[2].response(to: id, in: account) == Data("ok".utf8))
        #expect(try await queues[0].waitingCommands(for: [9], in: account, limit: 500).count == queues.count * perQueue - 1)
    }

    @Test("a server on a store of the user's own that queues no commands refuses relaying with 501 and a reason")
    func unavailableOnOtherStores() async throws {
        let server = SyncServer(store: RecordsOnlyStore(base: InMemorySyncServerStore()))
        let token = try await server.addAccount(named: "office")
        await #expect(throws: SyncServerError.commandRelayUnavailable) {
            try await server.relay(CommandRelayRequest(sender: 1, target: 2, message: Data("{}".utf8)), token: token)
        }
        _ = try await withHTTPServer(server) { url in
            await #expect(throws: SyncTransportError.refused(status: 501, reason: "This server's store does not relay commands")) {
                try await HTTPSyncTransport(server: url, token: token).inbox(CommandInboxRequest(replicas: [1], limit: 5))
            }
        }
    }
}

/// A store with records only, as a user's own store may be.
private struct RecordsOnlyStore: SyncServerStore {
    let base: InMemorySyncServerStore
    func addAccount(name: String, tokenHash: [UInt8]) async throws -> AccountID { try base.addAccount(name: name, tokenHash: tokenHash) }
    func account(tokenHash: [UInt8]) async throws -> AccountID? { try base.account(tokenHash: tokenHash) }
    func append(_ records: [SyncRecord], to account: AccountID) async throws -> [AppendOutcome] { try base.append(records, to: account) }
    func records(of account: AccountID, after sequence: Int64, limit: Int) async throws -> [SequencedRecord] { try base.records(of: account, after: sequence, limit: limit) }
    func accountSummaries() async throws -> [AccountSummary] { try base.accountSummaries() }
}

/// A transport with push and pull only, as a user's own transport may be.
private struct PushPullOnly: SyncTransport {
    let base: InProcessTransport
    func push(_ request: PushRequest) async throws -> PushResponse { try await base.push(request) }
    func pull(_ request: PullRequest) async throws -> PullResponse { try await base.pull(request) }
}
