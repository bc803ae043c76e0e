import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

/// Random and mutated payloads fed to every decoder that takes outside bytes — each typed
/// `process` of ``RequestProcessor``, each `apply` of ``UpdateConsumer``,
/// ``StateClient/run(command:)`` and ``Database/importRecords(from:)`` — on in-memory and
/// SQLite databases: nothing crashes, every refusal is a typed error, and a refused payload
/// leaves the database exactly as it was (every record, current value and status).
///
/// Seeded, so a failure replays: `PATHBASE_FUZZ_SEED` picks another seed,
/// `PATHBASE_FUZZ_PAYLOADS` the number of payloads (the reliability stage raises it to 10^4).
@Suite("Fuzzing: every decoder of outside bytes, on in-memory and SQLite databases")
struct SyncFuzzTests {

    /// The databases the payloads are fed to.
    enum Store: String, CaseIterable, CustomStringConvertible {
        case inMemory
        case sqlite

        func make() -> any HistoryDatabase {
            switch self {
            case .inMemory: InMemoryHistoryDatabase()
            case .sqlite: SQLiteTestFiles.makeDatabase(path: nil)
            }
        }

        var description: String { rawValue }
    }

    /// What a decoder did with a payload.
    enum Outcome {
        /// Decoded and used.
        case accepted
        /// Refused with the decoder's typed error: the database must be unchanged.
        case refused
        /// A command that was decoded, ran and threw: its writes may stay.
        case ran
        /// Refused with an error of an unexpected type.
        case untyped(any Error)
    }

    /// One decoder of outside bytes: the valid messages it takes, messages it must refuse
    /// whole (both are mutated), and the database it writes.
    struct EntryPoint {
        let name: String
        let corpus: [Data]
        var refusedWhole: [Data] = []
        let database: any HistoryDatabase
        let feed: (Data) -> Outcome

        /// What the payloads for this decoder are derived from.
        var sources: [Data] { corpus + refusedWhole }
    }

    /// A producer and a consumer on one kind of store that talk with one coding, with some data.
    struct Sides {
        let coding: SyncCoding
        let store: Store
        private(set) var pair: SyncPair
        private(set) var client: StateClient

        init(_ coding: SyncCoding, _ store: Store) {
            self.coding = coding
            self.store = store
            pair = SyncPair(coding, producer: store.make(), consumer: store.make())
            client = StateClient(database: pair.producerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
            reset()
        }

        var name: String { "\(store)/\(coding)" }

        /// Fresh databases, so that snapshots stay small.
        mutating func reset() {
            pair = SyncPair(coding, producer: store.make(), consumer: store.make())
            client = StateClient(database: pair.producerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
            let producer = pair.producerDatabase
            let owner = SyncOwner.create(in: producer, id: 1, name: "o")
            let tag = SyncTag.create(in: producer, id: 1, label: "t")
            _ = SyncItem.create(in: producer, id: 1, title: "a", count: 1, note: nil, owner: owner, tags: [tag], scores: ["x": 1])
            SyncItem.create(in: producer, id: 2, title: "b").delete()
            _ = Package.create(in: producer, id: 1, name: "p")
            _ = SyncItem.create(in: pair.consumerDatabase, id: 3, title: "local")
        }

        /// Every decoder, each with the valid messages it accepts.
        func entryPoints() throws -> [EntryPoint] {
            let consumer = pair.consumer
            let producer = pair.producer
            let client = client
            let package = Package(database: pair.consumerDatabase, id: 1)
            let statusRequests = [
                try consumer.instanceStatusRequest(for: SyncItem.self),
                try consumer.instanceStatusRequest(for: SyncItem.self, after: SyncCursor(after: stamp(5)))
            ]
            let instanceRequests = [try consumer.instanceUpdateRequest(for: 1, of: SyncItem.self)]
            let modelRequests = [
                try consumer.modelUpdateRequest(for: SyncItem.self, limit: 3),
                try consumer.modelUpdateRequest(for: SyncOwner.self, after: Date(), limit: 1)
            ]
            let commands = [
                try package.installCommand(version: "1").encoded(using: coding.encoder),
                try package.configureCommand("k", to: 2, release: Release(version: "1", channel: "c")).encoded(using: coding.encoder),
                try package.countCommand(1, upTo: 2).encoded(using: coding.encoder)
            ]
            let statuses = try statusRequests.map(producer.process(instanceStatusRequest:))
            let instanceUpdates = try instanceRequests.map(producer.process(instanceUpdateRequest:))
            let modelUpdates = try modelRequests.map(producer.process(modelUpdateRequest:))
            let confirmations = try commands.map(producer.process(command:))
            let requests = statusRequests + instanceRequests + modelRequests + commands
            let responses = statuses + instanceUpdates + modelUpdates + confirmations

            /// A decoder that throws `SyncError`: refused, or ran when a command threw.
            func typed(_ body: @escaping (Data) throws(SyncError) -> Void) -> (Data) -> Outcome {
                { data in
                    do throws(SyncError) {
                        try body(data)
                        return .accepted
                    } catch .commandFailed {
                        return .ran
                    } catch {
                        return .refused
                    }
                }
            }
            let coding = coding
            let producerDatabase = pair.producerDatabase
            let consumerDatabase = pair.consumerDatabase
            return [
                EntryPoint(name: "RequestProcessor.process(request:)", corpus: requests, database: producerDatabase) { data in
                    SyncFuzzTests.responseOutcome(producer.process(request: data), coding)
                },
                EntryPoint(
                    name: "RequestProcessor.process(instanceStatusRequest:)", corpus: statusRequests, database: producerDatabase,
                    feed: typed { data throws(SyncError) in _ = try producer.process(instanceStatusRequest: data) }),
                EntryPoint(
                    name: "RequestProcessor.process(instanceUpdateRequest:)", corpus: instanceRequests, database: producerDatabase,
                    feed: typed { data throws(SyncError) in _ = try producer.process(instanceUpdateRequest: data) }),
                EntryPoint(
                    name: "RequestProcessor.process(modelUpdateRequest:)", corpus: modelRequests, database: producerDatabase,
                    feed: typed { data throws(SyncError) in _ = try producer.process(modelUpdateRequest: data) }),
                EntryPoint(
                    name: "RequestProcessor.process(command:)", corpus: commands, database: producerDatabase,
                    feed: typed { data throws(SyncError) in _ = try producer.process(command: data) }),
                EntryPoint(name: "StateClient.run(command:)", corpus: commands, database: producerDatabase) { data in
                    do {
                        try client.run(command: data)
                        return .accepted
                    } catch is SyncError {
                        return .refused
                    } catch {
                        return .ran // the command's own function threw
                    }
                },
                // An error response is well-formed, and apply throws the error it carries.
                EntryPoint(
                    name: "UpdateConsumer.apply(data:)", corpus: responses, refusedWhole: [producer.errorResponse(.unknownModel(5))], database: consumerDatabase,
                    feed: typed { data throws(SyncError) in _ = try consumer.apply(data: data) }),
                EntryPoint(
                    name: "UpdateConsumer.apply(instanceUpdates:)", corpus: statuses, database: consumerDatabase,
                    feed: typed { data throws(SyncError) in _ = try consumer.apply(instanceUpdates: data) }),
                EntryPoint(
                    name: "UpdateConsumer.apply(instanceUpdate:)", corpus: instanceUpdates, database: consumerDatabase,
                    feed: typed { data throws(SyncError) in _ = try consumer.apply(instanceUpdate: data) }),
                EntryPoint(
                    name: "UpdateConsumer.apply(modelUpdate:)", corpus: modelUpdates, database: consumerDatabase,
                    feed: typed { data throws(SyncError) in _ = try consumer.apply(modelUpdate: data) })
            ]
        }
    }

    /// Whether a response of `process(request:)` refuses the request (an error other than a
    /// command that ran and then failed).
    static func responseOutcome(_ response: Data, _ coding: SyncCoding) -> Outcome {
        struct Envelope: Decodable {
            var kind: String
        }
        struct ErrorEnvelope: Decodable {
            var body: SyncError
        }
        do {
            let envelope = try coding.decoder.decode(Envelope.self, from: response)
            guard envelope.kind == "error" else { return .accepted }
            if case .commandFailed = try coding.decoder.decode(ErrorEnvelope.self, from: response).body { return .ran }
            return .refused
        } catch {
            return .untyped(error)
        }
    }

    /// Counts per decoder, printed by the reliability stage.
    struct Tally {
        var fed = 0
        var refused = 0
        var accepted = 0
        var ran = 0
        var untyped = 0
        var changedAfterRefusal = 0
    }

    /// Feeds `payload` to `entry`, checks the outcome, and counts it; `before` is the
    /// database's snapshot, kept up to date.
    static func feed(_ payload: Data, to entry: EntryPoint, before: inout [String], tally: inout Tally, context: String) {
        tally.fed += 1
        let outcome = entry.feed(payload)
        switch outcome {
        case .accepted:
            tally.accepted += 1
            before = fullSnapshot(entry.database)
        case .ran:
            tally.ran += 1
            before = fullSnapshot(entry.database)
        case .refused, .untyped:
            if case .untyped(let error) = outcome {
                tally.untyped += 1
                Issue.record("\(entry.name) refused with an untyped error \(error); \(context)")
            } else {
                tally.refused += 1
            }
            let after = fullSnapshot(entry.database)
            if after != before {
                tally.changedAfterRefusal += 1
                Issue.record("\(entry.name) refused a payload but changed the database; \(context)")
                before = after
            }
        }
    }

    static func seed() throws -> UInt64 {
        try StressSettings.seed("PATHBASE_FUZZ_SEED", default: 0x5EED_2026)
    }

    @Test("Mutated sync payloads to every request, response and command decoder: typed refusals that change nothing")
    func syncDecoders() throws {
        let payloads = try StressSettings.count("PATHBASE_FUZZ_PAYLOADS", default: 500)
        let seed = try Self.seed()
        var mutator = PayloadMutator(seed: seed)
        var sides = SyncCoding.allCases.flatMap { coding in Store.allCases.map { Sides(coding, $0) } }
        var entries: [[EntryPoint]] = []
        var tallies: [String: Tally] = [:]

        for iteration in 0 ..< payloads {
            if iteration % 250 == 0 {
                for index in sides.indices { sides[index].reset() }
                entries = try sides.map { try $0.entryPoints() }
                // Each decoder takes its own valid messages, or refusing proves nothing.
                for (side, points) in zip(sides, entries) {
                    for entry in points {
                        for message in entry.corpus {
                            let outcome = entry.feed(message)
                            if case .accepted = outcome { continue }
                            Issue.record("\(entry.name) on \(side.name) refused a valid message: \(outcome)")
                        }
                        for message in entry.refusedWhole {
                            let outcome = entry.feed(message)
                            if case .refused = outcome { continue }
                            Issue.record("\(entry.name) on \(side.name) did not refuse: \(outcome)")
                        }
                    }
                }
            }
            let which = iteration % sides.count
            let everything = entries[which].flatMap(\.sources)
            let context = "payload \(iteration) on \(sides[which].name), PATHBASE_FUZZ_SEED=\(StressSettings.describe(seed))"
            var snapshots: [ObjectIdentifier: [String]] = [:]
            for entry in entries[which] {
                // Mostly mutations of the messages this decoder takes, sometimes of any message.
                let payload = mutator.mutate(oneOf: mutator.number(in: 0 ... 3) == 0 ? everything : entry.sources)
                let key = ObjectIdentifier(entry.database as AnyObject)
                var before = snapshots[key] ?? fullSnapshot(entry.database)
                Self.feed(payload, to: entry, before: &before, tally: &tallies[entry.name, default: Tally()], context: context)
                snapshots[key] = before
            }
        }

        for (name, tally) in tallies.sorted(by: { $0.key < $1.key }) {
            print(
                "[reliability] fuzz \(name): \(tally.fed) payloads, \(tally.refused) refused with a typed error, \(tally.accepted) accepted, \(tally.ran) ran a failing command, \(tally.untyped) untyped errors, \(tally.changedAfterRefusal) refusals changed the database"
            )
            // The mutations must mostly produce invalid data, or the test proves little.
            #expect(tally.refused * 2 > tally.fed, "\(name) refused only \(tally.refused) of \(tally.fed) payloads")
        }
        #expect(tallies.count == 10)
    }
}
