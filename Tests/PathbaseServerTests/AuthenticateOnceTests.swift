import Foundation
import Pathbase
import PathbaseServer
import Testing

/// The routes look the bearer token up before reading a body (401 first); the server's
/// call within the same request takes the account from there instead of asking the store
/// again (issue 62, item 4: a push authenticated twice).
@Suite("Sync routes: one token lookup per request")
struct AuthenticateOnceTests {

    /// An in-memory store that counts the token lookups it answers.
    private struct LookupCountingStore: SyncServerStore {
        let base = InMemorySyncServerStore()
        let lookups = Locked(0)

        func addAccount(name: String, tokenHash: [UInt8]) async throws -> AccountID {
            try base.addAccount(name: name, tokenHash: tokenHash)
        }

        func account(tokenHash: [UInt8]) async throws -> AccountID? {
            lookups.withLock { $0 += 1 }
            return try base.account(tokenHash: tokenHash)
        }

        func append(_ records: [SyncRecord], to account: AccountID) async throws -> [AppendOutcome] {
            try base.append(records, to: account)
        }

        func records(of account: AccountID, after sequence: Int64, limit: Int) async throws -> [SequencedRecord] {
            try base.records(of: account, after: sequence, limit: limit)
        }

        func accountSummaries() async throws -> [AccountSummary] { try base.accountSummaries() }
    }

    @Test("a push and a pull over HTTP each look the token up once; a wrong token is still refused")
    func oneLookupPerRequest() async throws {
        let store = LookupCountingStore()
        let server = SyncServer(store: store)
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server) { url in
            let transport = HTTPSyncTransport(server: url, token: token)
            let record = try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(latestAt: Date()), value: 1))
            store.lookups.withLock { $0 = 0 }
            let pushed = try await transport.push(PushRequest(replica: 4, records: [record]))
            #expect(pushed.acknowledged == [record.key])
            #expect(store.lookups.withLock { $0 } == 1, "token lookups for one push")
            let pulled = try await transport.pull(PullRequest(after: 0, limit: 10))
            #expect(pulled.records == [record])
            #expect(store.lookups.withLock { $0 } == 2, "token lookups for a push and a pull")

            let stranger = HTTPSyncTransport(server: url, token: "not a token")
            await #expect(throws: (any Error).self) { try await stranger.push(PushRequest(replica: 5, records: [record])) }
        }
    }
}
