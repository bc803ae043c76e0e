import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// README: "an oversized [body gets] 413, with a JSON `reason`, and nothing stored changes",
/// on a real `pathbase serve` with its default limit (8 MiB, `SyncRoutes.maximumBodySize`).
@Suite("pathbase serve: the default body limit")
struct ServeBodyLimitTests {

    @Test("a push body of exactly 8 MiB is read; one byte more gets 413 with a reason, and nothing is stored")
    func defaultBodyLimit() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(database: serverFile)
        defer { serve.kill() }
        let limit = 8 << 20
        #expect(SyncRoutes(server: SyncServer(store: InMemorySyncServerStore())).maximumBodySize == limit)

        // A push of one record, padded with JSON whitespace to the byte count wanted.
        let record = try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(time: 1_700_000_000_000_000, counter: 0, replica: 3), value: "padded"))
        let push = try JSONEncoder().encode(PushRequest(replica: 3, records: [record]))
        func padded(to size: Int) -> Data { push + Data(repeating: 0x20, count: size - push.count) }

        let over = try await RawExchange.send(to: serve.url, "v1/push", token: token, body: padded(to: limit + 1))
        #expect(over.status == 413)
        #expect(over.reason?.contains("\(limit) bytes") == true, "\(String(describing: over.reason))")
        let pulled = try await HTTPSyncTransport(server: serve.url, token: token).pull(PullRequest(after: 0, limit: 10))
        #expect(pulled.records.isEmpty, "the refused push stored \(pulled.records.count) records")

        let atLimit = try await RawExchange.send(to: serve.url, "v1/push", token: token, body: padded(to: limit))
        #expect(atLimit.status == 200, "\(String(describing: atLimit.reason))")
        let stored = try await HTTPSyncTransport(server: serve.url, token: token).pull(PullRequest(after: 0, limit: 10))
        #expect(stored.records.map(\.key) == [record.key])
    }
}
