import Foundation
import Pathbase
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// README: "`pathbase serve --models 1,2,10-19` rejects pushed records of other models, one
/// by one with a reason the replica lists in `rejectedRecords()`", on a real process.
@Suite("pathbase serve --models: a valid list keeps the listed models and ranges, rejects the others one by one")
struct ServeModelsTests {

    @Test("--models 1,2,10-19: models 1, 2, 10, 15 and 19 are stored; 3, 9 and 20 are rejected with a reason")
    func modelList() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try ServeProcess(store: ["--database", serverFile, "--models", "1,2,10-19"])
        defer { serve.kill() }

        let accepted: [ModelKey] = [1, 2, 10, 15, 19]
        let refused: [ModelKey] = [3, 9, 20]
        let writer = InMemoryHistoryDatabase()
        for model in accepted + refused {
            writer.set("model \(model)", for: Path(model: model, instance: 1, property: 1))
        }
        let replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        let report = try await replica.sync()
        #expect(report.acknowledged == accepted.count, "\(report)")
        #expect(report.rejected == refused.count, "\(report)")
        let rejected = replica.rejectedRecords()
        #expect(rejected.map(\.key.path.model).sorted() == refused)
        for entry in rejected {
            guard case .rejected(let reason) = entry.state else {
                Issue.record("\(entry.key.path) is not rejected: \(entry.state)")
                continue
            }
            #expect(!reason.isEmpty, "no reason for \(entry.key.path)")
        }

        let reader = InMemoryHistoryDatabase()
        let pulled = try await Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token)).sync()
        #expect(pulled.pulled == accepted.count)
        for model in accepted {
            #expect(reader.get(Path(model: model, instance: 1, property: 1)) == "model \(model)")
        }
        for model in refused {
            let value: String? = reader.get(Path(model: model, instance: 1, property: 1))
            #expect(value == nil, "model \(model) reached the server")
        }
    }
}
