import Foundation
import Pathbase
import Testing

/// Random and mutated payloads fed to every entry point that reads data: nothing crashes,
/// and whatever is refused leaves the databases as they were.
@Suite("Sync: fuzzing with hostile payloads")
struct SyncFuzzTests {


    /// A producer and a consumer that talk with one coding, both with some data.
    private struct Sides {
        let coding: SyncCoding
        var pair: SyncPair
        var client: StateClient

        init(_ coding: SyncCoding) {
            self.coding = coding
            pair = SyncPair(coding)
            client = StateClient(database: pair.producerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
            reset()
        }

        /// Fresh databases, so that snapshots stay small.
        mutating func reset() {
            pair = SyncPair(coding)
            client = StateClient(database: pair.producerDatabase, encoder: coding.encoder, decoder: coding.decoder, modelMap: syncModelMap)
            let producer = pair.producerDatabase
            let owner = SyncOwner.create(in: producer, id: 1, name: "o")
            let tag = SyncTag.create(in: producer, id: 1, label: "t")
            _ = SyncItem.create(in: producer, id: 1, title: "a", count: 1, note: nil, owner: owner, tags: [tag], scores: ["x": 1])
            SyncItem.create(in: producer, id: 2, title: "b").delete()
            _ = Package.create(in: producer, id: 1, name: "p")
            _ = SyncItem.create(in: pair.consumerDatabase, id: 3, title: "local")
        }

        /// Valid messages of every kind.
        func corpus() throws -> [Data] {
            let consumer = pair.consumer
            let producer = pair.producer
            let package = Package(database: pair.consumerDatabase, id: 1)
            let requests = [
                try consumer.instanceStatusRequest(for: SyncItem.self),
                try consumer.instanceStatusRequest(for: SyncItem.self, after: SyncCursor(after: stamp(5))),
                try consumer.instanceUpdateRequest(for: 1, of: SyncItem.self),
                try consumer.modelUpdateRequest(for: SyncItem.self, limit: 3),
                try consumer.modelUpdateRequest(for: SyncOwner.self, after: Date(), limit: 1),
                try package.installCommand(version: "1").encoded(using: coding.encoder),
                try package.configureCommand("k", to: 2, release: Release(version: "1", channel: "c")).encoded(using: coding.encoder),
                try package.countCommand(1, upTo: 2).encoded(using: coding.encoder),
            ]
            return requests + requests.map(producer.process(request:)) + [producer.errorResponse(.unknownModel(5))]
        }
    }

    private static let interesting = [
        "-1", "0", "1", "2", "2000", "2010", "9223372036854775807", "-9223372036854775808",
        "18446744073709551616", "1e308", "-1e308", "1.5", "null", "true", "\"\"", "\"x\"", "[]", "{}",
        "[1,2,3]", "[9223372036854775807,4294967295,4294967295]", "\"modelUpdate\"", "\"command\"",
        "\"instanceUpdateRequest\"", "\"error\"", "\"commandDone\"", "\"instanceStatuses\"",
    ]

    /// A payload derived from the corpus (or not) by one or more random edits.
    private func mutate(_ corpus: [Data], using random: inout SplitMix64) -> Data {
        if Int.random(in: 0..<20, using: &random) == 0 {
            return Data((0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        var bytes = [UInt8](corpus.randomElement(using: &random) ?? Data())
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let count = bytes.count
            switch Int.random(in: 0..<9, using: &random) {
            case 0 where count > 0: // truncate
                bytes.removeSubrange(Int.random(in: 0..<count, using: &random)...)
            case 1 where count > 0: // flip bits
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
                }
            case 2: // insert random bytes
                let insert = (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes.insert(contentsOf: insert, at: Int.random(in: 0...count, using: &random))
            case 3 where count > 1: // delete a range
                let start = Int.random(in: 0..<count, using: &random)
                bytes.removeSubrange(start..<min(count, start + Int.random(in: 1...16, using: &random)))
            case 4 where count > 1: // duplicate a range
                let start = Int.random(in: 0..<count, using: &random)
                let range = start..<min(count, start + Int.random(in: 1...32, using: &random))
                bytes.insert(contentsOf: bytes[range], at: Int.random(in: 0...count, using: &random))
            case 5: // splice with another payload
                let other = [UInt8](corpus.randomElement(using: &random) ?? Data())
                bytes = Array(bytes.prefix(Int.random(in: 0...count, using: &random))) + other.suffix(Int.random(in: 0...other.count, using: &random))
            case 6, 7: // replace a JSON number with an interesting token
                replaceToken(in: &bytes, matching: { ($0 >= 48 && $0 <= 57) || $0 == 45 }, using: &random)
            case 8: // replace a JSON string with an interesting token
                replaceString(in: &bytes, using: &random)
            default:
                break
            }
        }
        return Data(bytes)
    }

    private func replaceToken(in bytes: inout [UInt8], matching isPart: (UInt8) -> Bool, using random: inout SplitMix64) {
        let starts = bytes.indices.filter { isPart(bytes[$0]) && ($0 == 0 || !isPart(bytes[$0 - 1])) }
        guard let start = starts.randomElement(using: &random) else { return }
        var end = start
        while end < bytes.count, isPart(bytes[end]) { end += 1 }
        bytes.replaceSubrange(start..<end, with: Array((SyncFuzzTests.interesting.randomElement(using: &random) ?? "0").utf8))
    }

    private func replaceString(in bytes: inout [UInt8], using random: inout SplitMix64) {
        let quotes = bytes.indices.filter { bytes[$0] == 34 }
        guard quotes.count >= 2 else { return }
        let pair = Int.random(in: 0..<(quotes.count / 2), using: &random) * 2
        bytes.replaceSubrange(quotes[pair]...quotes[pair + 1], with: Array((SyncFuzzTests.interesting.randomElement(using: &random) ?? "0").utf8))
    }

    /// Whether a response reports an error other than a command that ran and then failed.
    private func isRefusal(_ response: Data, _ coding: SyncCoding) -> Bool {
        struct Envelope: Decodable {
            var kind: String
        }
        struct ErrorEnvelope: Decodable {
            var body: SyncError
        }
        guard let envelope = try? coding.decoder.decode(Envelope.self, from: response) else { return true }
        guard envelope.kind == "error" else { return false }
        if case .commandFailed = try? coding.decoder.decode(ErrorEnvelope.self, from: response).body { return false }
        return true
    }

    @Test("10 000 random and mutated payloads: no crash, and refused payloads change nothing")
    func fuzz() throws {
        var random = SplitMix64(seed: 0x5EED_2026)
        var sides = [Sides(.json), Sides(.propertyList)]
        var corpora = try sides.map { try $0.corpus() }
        var refused = (requests: 0, responses: 0, commands: 0)

        for iteration in 0..<10_000 {
            if iteration % 250 == 0 {
                for index in sides.indices { sides[index].reset() }
                corpora = try sides.map { try $0.corpus() }
            }
            let which = Int.random(in: 0..<sides.count, using: &random)
            let side = sides[which]
            let payload = mutate(corpora[which], using: &random)

            let producerBefore = snapshot(side.pair.producerDatabase)
            let response = side.pair.producer.process(request: payload)
            if isRefusal(response, side.coding) {
                refused.requests += 1
                #expect(snapshot(side.pair.producerDatabase) == producerBefore, "process(request:) changed the database, iteration \(iteration)")
            }

            let consumerBefore = snapshot(side.pair.consumerDatabase)
            do {
                try side.pair.consumer.apply(data: payload)
            } catch {
                refused.responses += 1
                #expect(snapshot(side.pair.consumerDatabase) == consumerBefore, "apply(data:) changed the database, iteration \(iteration)")
            }

            let commandBefore = snapshot(side.pair.producerDatabase)
            do {
                try side.client.run(command: payload)
            } catch is SyncError {
                refused.commands += 1
                #expect(snapshot(side.pair.producerDatabase) == commandBefore, "run(command:) changed the database, iteration \(iteration)")
            } catch {
                // The command itself threw after running.
            }
        }
        // The mutations must mostly produce invalid data, or the test proves little.
        #expect(refused.requests > 5_000)
        #expect(refused.responses > 5_000)
        #expect(refused.commands > 5_000)
    }
}
