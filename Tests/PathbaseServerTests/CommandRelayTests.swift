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

    @Test("a command waits on the server until the owner connects, runs there once, and its answer and changes reach the sender", arguments: [StoreKind.memory, .sqlite])
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

    @Test("a command that throws or names a missing instance comes back as the owner's SyncError")
    func failuresComeBack() async throws {
        let server = SyncServer(store: InMemorySyncServerStore())
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

    @Test("the relay over HTTP: AutomaticSync runs waiting commands and pushes their changes; other accounts see nothing; bad tickets get 404")
    func overHTTP() async throws {
        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
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
            let deadline = ContinuousClock.now + .seconds(10)
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

    @Test("a server on a store that queues no commands (PostgreSQL, for now) refuses relaying with a reason")
    func unavailableOnPostgres() async throws {
        let server = SyncServer(store: try await StoreKind.postgres.make())
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

/// A transport with push and pull only, as a user's own transport may be.
private struct PushPullOnly: SyncTransport {
    let base: InProcessTransport
    func push(_ request: PushRequest) async throws -> PushResponse { try await base.push(request) }
    func pull(_ request: PullRequest) async throws -> PullResponse { try await base.pull(request) }
}
