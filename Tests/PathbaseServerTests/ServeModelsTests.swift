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

    @Test("--models 1,2,10-19: models 1, 2, 10, 15 and 19 (and model 2's description) are stored; 3, 9 and 20 (and model 3's description) are rejected with a reason")
    func modelList() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(store: ["--database", serverFile, "--models", "1,2,10-19"])
        defer { serve.kill() }

        let accepted: [ModelKey] = [1, 2, 10, 15, 19]
        let refused: [ModelKey] = [3, 9, 20]
        let writer = InMemoryHistoryDatabase()
        for model in accepted + refused {
            writer.set("model \(model)", for: Path(model: model, instance: 1, property: 1))
        }
        // The file catalog's descriptions of models 2 (listed) and 3 (not): each goes with its model.
        let description = { (model: ModelKey) in Path(model: ModelDescription.catalogModel, instance: model, property: 1) }
        writer.set(ModelDescription(name: "Two", properties: []), for: description(2))
        writer.set(ModelDescription(name: "Three", properties: []), for: description(3))
        let replica = try Replica(database: writer, transport: HTTPSyncTransport(server: serve.url, token: token))
        let report = try await replica.sync()
        #expect(report.acknowledged == accepted.count + 1, "\(report)")
        #expect(report.rejected == refused.count + 1, "\(report)")
        let rejected = replica.rejectedRecords()
        #expect(rejected.filter { $0.key.path.model != ModelDescription.catalogModel }.map(\.key.path.model).sorted() == refused)
        #expect(rejected.filter { $0.key.path.model == ModelDescription.catalogModel }.map(\.key.path.instance) == [3])
        for entry in rejected {
            guard case .rejected(let reason) = entry.state else {
                Issue.record("\(entry.key.path) is not rejected: \(entry.state)")
                continue
            }
            #expect(!reason.isEmpty, "no reason for \(entry.key.path)")
        }

        let reader = InMemoryHistoryDatabase()
        let pulled = try await Replica(database: reader, transport: HTTPSyncTransport(server: serve.url, token: token)).sync()
        #expect(pulled.pulled == accepted.count + 1)
        #expect(reader.modelDescription(of: 2)?.name == "Two")
        #expect(reader.modelDescription(of: 3) == nil)
        for model in accepted {
            #expect(reader.get(Path(model: model, instance: 1, property: 1)) == "model \(model)")
        }
        for model in refused {
            let value: String? = reader.get(Path(model: model, instance: 1, property: 1))
            #expect(value == nil, "model \(model) reached the server")
        }
    }
}
