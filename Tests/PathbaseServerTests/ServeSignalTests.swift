import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// README: `pathbase serve … # until SIGTERM or SIGINT`; the help: "a graceful shutdown".
@Suite("pathbase serve: SIGINT stops it cleanly")
struct ServeSignalTests {

    @Test("SIGINT (Ctrl-C): exit status 0, 'stopped' printed, the port released, the file opens again with what was pushed")
    func stopsOnInterrupt() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try ServeProcess(database: serverFile)
        defer { if serve.isRunning { serve.kill() } }
        let port = try #require(serve.url.port)
        let phone = InMemoryHistoryDatabase()
        phone.set("before the signal", for: Path(model: 6, instance: 1, property: 1))
        #expect(try await Replica(database: phone, transport: HTTPSyncTransport(server: serve.url, token: token)).sync().acknowledged == 1)

        #expect(kill(serve.pid, SIGINT) == 0)
        let deadline = Date().addingTimeInterval(30)
        while serve.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!serve.isRunning, "still running 30 s after SIGINT")
        #expect(serve.child.endedBySignal == false, "ended by a signal, not by exiting")
        #expect(serve.child.exitStatus == 0)
        #expect(serve.output.contains("pathbase serve: stopped"), "\(serve.output)")
        // Nothing listens on the port any more.
        #expect(throws: RawConnectionError.self) { _ = try RawConnection(port: port) }

        let restarted = try ServeProcess(database: serverFile)
        defer { restarted.kill() }
        let reader = InMemoryHistoryDatabase()
        #expect(try await Replica(database: reader, transport: HTTPSyncTransport(server: restarted.url, token: token)).sync().pulled == 1)
        #expect(reader.get(Path(model: 6, instance: 1, property: 1)) == "before the signal")
    }
}
