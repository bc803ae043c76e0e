import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// README: `GET /v1/metrics` "takes the token the server was started with
/// (`PATHBASE_METRICS_TOKEN=… pathbase serve …`) … and is off without one", on a real process.
@Suite("pathbase serve: the metrics token from PATHBASE_METRICS_TOKEN")
struct ServeMetricsTokenTests {

    private func account(_ serverFile: String) throws -> String {
        let added = try ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("with the variable set: no token and a wrong one (an account's included) get 401 with a reason; the metrics token gets the report")
    func tokenRequired() async throws {
        let serverFile = ServerTestFiles.newPath()
        let accountToken = try account(serverFile)
        let serve = try await ServeProcess(database: serverFile, environment: ["PATHBASE_METRICS_TOKEN": "metrics-secret"])
        defer { serve.kill() }
        for token in [nil, "wrong", "metrics-secre", accountToken] {
            let refused = try await RawExchange.send("GET", to: serve.url, "v1/metrics", token: token, body: nil)
            #expect(refused.status == 401, "\(String(describing: token))")
            #expect(refused.reason?.contains("metrics token") == true, "\(String(describing: refused.reason))")
        }
        let answered = try await RawExchange.send("GET", to: serve.url, "v1/metrics", token: "metrics-secret", body: nil)
        #expect(answered.status == 200)
        let report = try JSONDecoder().decode(MetricsReport.self, from: answered.body)
        #expect(report.accountCount == 1)
        #expect(report.accounts.map(\.name) == ["alice"])
    }

    @Test("without the variable, or with it empty, metrics are off: 403 with a reason, whatever the token")
    func offWithoutToken() async throws {
        for environment in [[:], ["PATHBASE_METRICS_TOKEN": ""]] {
            let serverFile = ServerTestFiles.newPath()
            let accountToken = try account(serverFile)
            let serve = try await ServeProcess(database: serverFile, environment: environment)
            defer { serve.kill() }
            for token in [nil, "", accountToken] {
                let refused = try await RawExchange.send("GET", to: serve.url, "v1/metrics", token: token, body: nil)
                #expect(refused.status == 403, "\(environment) \(String(describing: token))")
                #expect(refused.reason?.contains("PATHBASE_METRICS_TOKEN") == true, "\(String(describing: refused.reason))")
            }
        }
    }
}
