import Foundation
import Pathbase
import Testing

/// `@Command` functions called on another database: through `StateClient.run(command:)`
/// and `RequestProcessor.process(command:)`, with typed errors that change nothing.
@Suite("Commands")
struct CommandTests {

    /// A remote database with one package, and a local handle to the same instance.
    private func setUp(_ remote: any Database = InMemoryHistoryDatabase()) -> (remote: any Database, local: Package) {
        _ = Package.create(in: remote, id: 7, name: "tool")
        let local = Package.create(in: InMemoryDatabase(), id: 7, name: "tool")
        return (remote, local)
    }

    private func remotePackage(_ remote: any Database) -> Package? {
        remote.get(id: 7, of: Package.self)
    }

    @Test("A command made on one side runs on the instance with the same id on the other", arguments: SyncCoding.allCases)
    func runCommand(coding: SyncCoding) throws {
        let (remote, local) = setUp()
        let command = local.installCommand(version: "1.0.0")
        #expect(command.model == Package.modelId)
        #expect(command.instance == 7)
        #expect(command.command == 2)
        let data = try command.encoded(using: coding.encoder)

        let client = StateClient(database: remote, encoder: coding.encoder, decoder: coding.decoder)
        try client.run(command: data)
        #expect(remotePackage(remote)?.installed == ["1.0.0"])
        #expect(local.installed == []) // creating a command runs nothing locally
        try client.run(command: data)
        #expect(remotePackage(remote)?.installed == ["1.0.0", "1.0.0"])
    }

    @Test("Labels, unnamed and optional parameters, Codable structs, defaults and results", arguments: SyncCoding.allCases)
    func argumentKinds(coding: SyncCoding) throws {
        let (remote, local) = setUp()
        let client = StateClient(database: remote, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        try client.run(command: client.encoded(local.configureCommand("mode", to: nil, release: Release(version: "2", channel: "beta"))))
        try client.run(command: client.encoded(local.configureCommand("level", to: 3, release: Release(version: "3", channel: "stable"))))
        try client.run(command: client.encoded(local.countCommand(1)))
        try client.run(command: client.encoded(local.countCommand(1, upTo: 9)))
        try client.run(command: client.encoded(local.resetCommand()))
        #expect(remotePackage(remote)?.log == ["mode=nil@2/beta", "level=3@3/stable", "count to 3", "count to 9", "reset"])
    }

    @Test("RequestProcessor.process(command:) runs the command and confirms it", arguments: SyncCoding.allCases)
    func processCommand(coding: SyncCoding) throws {
        let (remote, local) = setUp()
        let processor = RequestProcessor(database: remote, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        let response = try processor.process(command: local.installCommand(version: "3").encoded(using: coding.encoder))
        #expect(remotePackage(remote)?.installed == ["3"])
        let consumer = UpdateConsumer(database: InMemoryHistoryDatabase(), encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        #expect(try consumer.apply(data: response).instances == [7])
    }

    @Test("Commands run on plain databases too, including a hand-written one", arguments: [DatabaseKind.inMemory, .minimal])
    func plainDatabases(kind: DatabaseKind) throws {
        let (remote, local) = setUp(kind.make())
        let client = StateClient(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder())
        try client.run(command: local.installCommand(version: "4").encoded(using: JSONEncoder()))
        #expect(remotePackage(remote)?.installed == ["4"])
    }

    // MARK: Refused commands

    /// Runs `data` through a client and a processor; both must refuse it with `expected`
    /// and leave the remote database as it was.
    private func expectRefused(_ data: Data, _ expected: SyncError, coding: SyncCoding = .json, isRequest: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let remote = InMemoryHistoryDatabase()
        _ = Package.create(in: remote, id: 7, name: "tool")
        let deleted = Package.create(in: remote, id: 8, name: "gone")
        deleted.delete()
        let before = snapshot(remote)
        let client = StateClient(database: remote, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        #expect(throws: expected, sourceLocation: sourceLocation) { try client.run(command: data) }
        let processor = RequestProcessor(database: remote, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        #expect(throws: expected, sourceLocation: sourceLocation) { try processor.process(command: data) }
        let consumer = UpdateConsumer(database: InMemoryHistoryDatabase(), encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
        if !isRequest { // another request is answered by process(request:)
            #expect(remoteError(processor.process(request: data), consumer: consumer) == expected, sourceLocation: sourceLocation)
        }
        #expect(snapshot(remote) == before, sourceLocation: sourceLocation)
    }

    private func command(model: ModelKey = Package.modelId, instance: InstanceKey = 7, command: CommandKey = 2, arguments: [any Encodable] = ["1.0"]) throws -> Data {
        try InstanceCommand(model: model, instance: instance, command: command, arguments: arguments).encoded(using: JSONEncoder())
    }

    @Test("Unknown model, instance (or deleted one) and command id: typed errors, nothing runs")
    func unknownTargets() throws {
        try expectRefused(command(model: 1399), .unknownModel(1399))
        try expectRefused(command(instance: 99), .unknownInstance(model: Package.modelId, instance: 99))
        try expectRefused(command(instance: 8), .unknownInstance(model: Package.modelId, instance: 8))
        try expectRefused(command(command: 1), .unknownCommand(model: Package.modelId, command: 1)) // a property id
        try expectRefused(command(command: 42), .unknownCommand(model: Package.modelId, command: 42))
    }

    @Test("Arguments of the wrong type, too few or too many: undecodable, nothing runs")
    func undecodableArguments() throws {
        for arguments in [[42], [], ["1.0", "extra"], [Release(version: "1", channel: "x")]] as [[any Encodable]] {
            let data = try command(arguments: arguments)
            let remote = InMemoryHistoryDatabase()
            _ = Package.create(in: remote, id: 7)
            let client = StateClient(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
            do {
                try client.run(command: data)
                Issue.record("arguments \(arguments) were accepted")
            } catch let error as SyncError {
                guard case .undecodableArguments(let model, let command, let reason) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(model == Package.modelId)
                #expect(command == 2)
                #expect(!reason.isEmpty)
            }
            #expect(remote.get(id: 7, of: Package.self)?.installed == [])
        }
        // A struct where a String? is expected, and a missing struct.
        let data = try command(command: 5, arguments: ["k", 1])
        let remote = InMemoryHistoryDatabase()
        _ = Package.create(in: remote, id: 7)
        expectSyncError("undecodableArguments") {
            try StateClient(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap).run(command: data)
        }
        #expect(remote.get(id: 7, of: Package.self)?.log == [])
    }

    @Test("Data that is not a command is refused")
    func notACommand() throws {
        let pair = SyncPair()
        try expectRefused(try pair.consumer.modelUpdateRequest(for: SyncItem.self, limit: 1), .unexpectedMessage(kind: "modelUpdateRequest", expected: "a command"), isRequest: true)
        let error = try #require(try? JSONDecoder().decode(SyncError.self, from: try JSONEncoder().encode(SyncError.malformedMessage("x"))))
        #expect(error == .malformedMessage("x"))
        expectSyncError("malformedMessage") {
            try StateClient(database: InMemoryDatabase(), encoder: JSONEncoder(), decoder: JSONDecoder()).run(command: Data("{".utf8))
        }
    }

    @Test("A command that throws: the client rethrows its error, the processor reports it")
    func throwingCommand() throws {
        let (remote, local) = setUp()
        let data = try local.failCommand(reason: "space").encoded(using: JSONEncoder())
        let client = StateClient(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder())
        #expect(throws: InstallFailure.self) { try client.run(command: data) }
        let processor = RequestProcessor(database: remote, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: syncModelMap)
        #expect(throws: SyncError.commandFailed(model: Package.modelId, command: 6, reason: "disk full")) {
            try processor.process(command: data)
        }
        // The command ran (and wrote) before it threw: commands are ordinary functions.
        #expect(remotePackage(remote)?.log == ["tried space", "tried space"])
    }

    // MARK: Model registry

    @Test("The registry knows types used with a database, answers nil for ambiguous ids, and registered types win")
    func registry() {
        func isType(_ type: (any ModelProtocol.Type)?, _ expected: any ModelProtocol.Type) -> Bool {
            type.map { ObjectIdentifier($0) == ObjectIdentifier(expected) } ?? false
        }
        let registry = ModelRegistry()
        #expect(registry.type(for: RegistryFirst.modelId) == nil)
        registry.register(RegistryFirst.self)
        #expect(isType(registry.type(for: RegistryFirst.modelId), RegistryFirst.self))

        _ = Package.create(in: MinimalDatabase(), id: 1)
        #expect(isType(ModelRegistry.shared.type(for: Package.modelId), Package.self))
        // Two types with one id, each used with its own database: ambiguous.
        _ = RegistryFirst.create(in: InMemoryDatabase(), id: 1)
        #expect(isType(ModelRegistry.shared.type(for: RegistryFirst.modelId), RegistryFirst.self))
        _ = RegistrySecond.create(in: InMemoryDatabase(), id: 1)
        #expect(ModelRegistry.shared.type(for: RegistryFirst.modelId) == nil)
        ModelRegistry.shared.register(RegistrySecond.self)
        #expect(isType(ModelRegistry.shared.type(for: RegistryFirst.modelId), RegistrySecond.self))
    }
}

@Model(id: 2049)
private final class RegistryFirst {}

@Model(id: 2049)
private final class RegistrySecond {}
