import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// Random and mutated bodies sent over HTTP to every endpoint that decodes one (push, pull)
/// of a server on an SQLite store: every body the JSON decoder refuses gets a 4xx with a
/// JSON reason and changes nothing; a body that still decodes changes at most the records the
/// answer acknowledges; the server keeps answering, and other accounts never change.
///
/// Seeded, so a failure replays: `PATHBASE_FUZZ_SEED` picks another seed,
/// `PATHBASE_FUZZ_PAYLOADS` the number of bodies (the reliability stage raises it to 10^4).
@Suite("Fuzzing the sync server's HTTP decoders")
struct ServerFuzzTests {

    /// One endpoint that decodes a body, and the valid bodies the payloads derive from.
    private struct Endpoint {
        let path: String
        let corpus: [Data]
        let decodes: (Data) -> Bool
    }

    private static func record(_ instance: Int, _ value: any DatabaseValue, property: Int = 1, replica: UInt32 = 4) throws -> SyncRecord {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return try SyncRecord(Record(path: Path(model: 6, instance: instance, property: property), timestamp: Timestamp(time: now, counter: UInt32(instance), replica: replica), value: value))
    }

    /// Everything an account holds, in sequence order.
    private static func everything(_ server: SyncServer, _ token: String) async throws -> [SyncRecord] {
        var records: [SyncRecord] = []
        var page = PullResponse(records: [], cursor: 0, hasMore: true)
        while page.hasMore {
            page = try await server.pull(PullRequest(after: page.cursor, limit: server.maximumPageSize), token: token)
            records += page.records
        }
        return records
    }

    @Test("random and mutated push, pull and asset inventory bodies: a 4xx with a reason and nothing changed, or only acknowledged records stored")
    func mutatedBodies() async throws {
        let payloads = try StressSettings.count("PATHBASE_FUZZ_PAYLOADS", default: 300)
        let seed = try StressSettings.seed("PATHBASE_FUZZ_SEED", default: 0x5EED_2026)
        print("[reliability] server fuzz: \(payloads) bodies, PATHBASE_FUZZ_SEED=\(StressSettings.describe(seed))")
        var mutator = PayloadMutator(seed: seed)

        let server = SyncServer(store: try SQLiteSyncServerStore(path: ServerTestFiles.newPath()))
        let alice = try await server.addAccount(named: "alice")
        let bob = try await server.addAccount(named: "bob")
        let stored = try [Self.record(1, "stored"), Self.record(2, 42, property: 2), Self.record(3, [1, 2, 3] as [Int])]
        _ = try await server.push(PushRequest(replica: 4, records: stored), token: alice)
        _ = try await server.push(PushRequest(replica: 5, records: [try Self.record(1, "bob's", replica: 5)]), token: bob)
        let bobsRecords = try await Self.everything(server, bob)

        let encoder = JSONEncoder()
        let fresh = try [Self.record(10, "new"), Self.record(11, Date(timeIntervalSince1970: 1_700_000_000)), Self.record(12, true, property: 3)]
        let endpoints = [
            Endpoint(
                path: "v1/push",
                corpus: try [
                    encoder.encode(PushRequest(replica: 4, records: stored)),
                    encoder.encode(PushRequest(replica: 4, records: fresh)),
                    encoder.encode(PushRequest(replica: 9, records: [])),
                    Data(#"{"replica": 4, "records": [], "extra": {"nested": [1, "two", null]}}"#.utf8)
                ], decodes: { (try? JSONDecoder().decode(PushRequest.self, from: $0)) != nil }),
            Endpoint(
                path: "v1/pull",
                corpus: try [
                    encoder.encode(PullRequest(after: 0, limit: 10)),
                    encoder.encode(PullRequest(after: 2, limit: 1000, replica: 7)),
                    Data(#"{"after": 1, "limit": 2, "replica": null}"#.utf8)
                ], decodes: { (try? JSONDecoder().decode(PullRequest.self, from: $0)) != nil }),
            Endpoint(
                path: "v1/assets/missing",
                corpus: try [
                    encoder.encode(AssetInventoryRequest(assets: [try Asset(hash: String(repeating: "ab", count: 32), size: 10), try Asset(hash: String(repeating: "0", count: 64), size: 0)])),
                    Data(#"{"assets": []}"#.utf8)
                ], decodes: { (try? JSONDecoder().decode(AssetInventoryRequest.self, from: $0)) != nil })
        ]

        var expected = try await Self.everything(server, alice)
        var refused = 0
        var decodable = 0
        try await withHTTPServer(server) { url in
            for iteration in 0 ..< payloads {
                let endpoint = endpoints[mutator.number(in: 0 ... endpoints.count - 1)]
                let body = mutator.mutate(oneOf: endpoint.corpus)
                let context = "body \(iteration) to \(endpoint.path): \(String(decoding: body.prefix(200), as: UTF8.self)), PATHBASE_FUZZ_SEED=\(StressSettings.describe(seed))"
                let exchange = try await RawExchange.send(to: url, endpoint.path, token: alice, body: body)
                let now = try await Self.everything(server, alice)
                guard endpoint.decodes(body) else {
                    refused += 1
                    #expect((400 ..< 500).contains(exchange.status), "status \(exchange.status) for \(context)")
                    #expect(exchange.reason?.isEmpty == false, "no JSON reason for \(context)")
                    #expect(now == expected, "the store changed after \(context)")
                    continue
                }
                // Still a valid request: refused whole, or answered with what it stored.
                decodable += 1
                if (400 ..< 500).contains(exchange.status) {
                    #expect(exchange.reason?.isEmpty == false, "no JSON reason for \(context)")
                    #expect(now == expected, "the store changed after \(context)")
                    continue
                }
                try #require(exchange.status == 200, "status \(exchange.status) for \(context)")
                #expect(Array(now.prefix(expected.count)) == expected, "stored records changed after \(context)")
                if endpoint.path == "v1/push" {
                    let answer = try JSONDecoder().decode(PushResponse.self, from: exchange.body)
                    let added = Set(now.dropFirst(expected.count).map(\.key))
                    #expect(added.isSubset(of: Set(answer.acknowledged)), "records stored but not acknowledged after \(context)")
                    #expect(answer.rejected.allSatisfy { !$0.reason.isEmpty })
                } else {
                    #expect(now == expected, "a pull or an inventory changed the store: \(context)")
                }
                expected = now
            }
            #expect(try await RawExchange.send("GET", to: url, "v1/health", token: nil, body: nil).status == 200)
        }
        #expect(try await Self.everything(server, bob) == bobsRecords)
        #expect(refused > payloads / 2, "most bodies should be malformed: \(refused) of \(payloads)")
        print("[reliability] server fuzz: \(refused) malformed bodies refused with a reason, \(decodable) still valid requests answered")
    }
}
