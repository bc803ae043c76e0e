import Foundation
import Pathbase
import PathbaseServer
import PathbaseTestSupport
import Testing

/// README: `pathbase serve … # until SIGTERM or SIGINT`; the help: "a graceful shutdown".
@Suite("pathbase serve: SIGINT and SIGTERM stop it cleanly")
struct ServeSignalTests {

    @Test("SIGINT (Ctrl-C): exit status 0, 'stopped' printed, the port released, the file opens again with what was pushed")
    func stopsOnInterrupt() async throws {
        let serverFile = ServerTestFiles.newPath()
        let added = try await ServeProcess.run(["accounts", "add", "alice", "--database", serverFile])
        #expect(added.status == 0, "\(added.errors)")
        let token = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(database: serverFile)
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

        let restarted = try await ServeProcess(database: serverFile)
        defer { restarted.kill() }
        let reader = InMemoryHistoryDatabase()
        #expect(try await Replica(database: reader, transport: HTTPSyncTransport(server: restarted.url, token: token)).sync().pulled == 1)
        #expect(reader.get(Path(model: 6, instance: 1, property: 1)) == "before the signal")
    }

    @Test(
        "SIGTERM with open live WebSockets and a replica syncing: the server stops within 10 s (it waited for the live lines forever), exit status 0",
        arguments: [StoreKind.sqlite, .postgres])
    func stopsOnTerminateWithLiveLines(kind: StoreKind) async throws {
        let (serve, token) = try await kind.serveProcess(account: "alice")
        defer { if serve.isRunning { serve.kill() } }
        let port = try #require(serve.url.port)
        // Five live lines, upgraded and left open, as five devices keep them.
        var lines: [RawConnection] = []
        for _ in 0 ..< 5 {
            let line = try RawConnection(port: port)
            let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13"
            try line.send("GET /v1/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\(upgrade)\r\n\r\n")
            #expect(RawConnection.status(of: line.receive(timeout: 10) { $0.count > 12 }) == 101)
            lines.append(line)
        }
        let phone = InMemoryHistoryDatabase()
        phone.set("before the signal", for: Path(model: 6, instance: 1, property: 1))
        #expect(try await Replica(database: phone, transport: HTTPSyncTransport(server: serve.url, token: token)).sync().acknowledged == 1)

        let signalled = Date()
        #expect(kill(serve.pid, SIGTERM) == 0)
        let deadline = signalled.addingTimeInterval(60)
        while serve.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let seconds = Date().timeIntervalSince(signalled)
        #expect(!serve.isRunning && seconds < 10, "still running \(Int(seconds)) s after SIGTERM with live lines open")
        #expect(serve.child.endedBySignal == false, "ended by a signal, not by exiting")
        #expect(serve.child.exitStatus == 0)
        #expect(serve.output.contains("pathbase serve: stopped"), "\(serve.output.suffix(500))")
        for line in lines {
            _ = line.receive(timeout: 2)
            #expect(line.closed, "a live line stayed open after the server stopped")
        }
    }
}
