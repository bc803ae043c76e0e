import Foundation
import Pathbase
import PathbaseLiveSync
import PathbaseServer
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// `pathbase serve --tls-certificate FILE --tls-key FILE`: HTTPS and WSS with a certificate
/// file made by the test (openssl, self-signed for 127.0.0.1).
@Suite("TLS: HTTPS and WSS with a real certificate file", .enabled(if: TestCertificate.canMake && Curl.isInstalled))
struct TLSTests {

    @Test("a client that trusts the certificate file pushes and pulls over https and hears wss; clients that do not trust it are refused; plain HTTP to the TLS port gets nothing")
    func endToEnd() async throws {
        let tls = try TestCertificate()
        defer { tls.remove() }
        let certificate = tls.certificate
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        try await withHTTPServer(server, tls: SyncServerTLS(certificateFile: certificate, keyFile: tls.key)) { url in
            #expect(url.scheme == "https")
            // Trusted (curl with the file as its CA): a push and a pull over HTTPS.
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            let record = try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(time: now, counter: 0, replica: 4), value: "over tls"))
            let push = String(decoding: try JSONEncoder().encode(PushRequest(replica: 4, records: [record])), as: UTF8.self)
            let pushed = try await Curl.run(["--cacert", certificate, "-H", "Authorization: Bearer \(token)", "-d", push, url.absoluteString + "/v1/push"])
            #expect(pushed.exitStatus == 0 && pushed.output.contains("acknowledged"), "\(pushed)")
            let pulled = try await Curl.run(["--cacert", certificate, "-H", "Authorization: Bearer \(token)", "-d", #"{"after":0,"limit":10}"#, url.absoluteString + "/v1/pull"])
            #expect(pulled.exitStatus == 0 && pulled.output.contains("over tls"), "\(pulled)")
            // The live WebSocket over wss, trusting the file.
            let connected = Locked(false)
            // By name: a TLS client sends the host as SNI, which may not be an IP address.
            let named = try #require(URL(string: "https://localhost:\(url.port ?? 0)"))
            let live = WebSocketLiveUpdates(server: named, token: token, trustedCertificatesFile: certificate)
            let listening = Task { try await live.listen(connected: { connected.withLock { $0 = true } }, changed: { _ in }) }
            let deadline = Date().addingTimeInterval(60)
            while !connected.current, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            listening.cancel()
            let ended = await listening.result
            #expect(connected.current, "the wss client did not connect: \(ended)")
            // Untrusted: the system's trust store does not hold a self-signed certificate.
            let replica = try Replica(database: try SQLiteDatabase(path: ServerTestFiles.newPath()), transport: HTTPSyncTransport(server: url, token: token))
            // URLSession (libcurl) on Linux: code -1 with curl's reason.
            let refused = await #expect(throws: URLError.self) { try await replica.sync() }
            #expect(refused?.localizedDescription.contains("SSL certificate problem") == true, "\(String(describing: refused))")
            // The live line without the file, by name (by IP, SNI fails before any certificate
            // check): the handshake refuses the certificate. A line that connects would listen
            // for ever: the watchdog ends it, and the test fails.
            let untrustedConnected = Locked(false)
            let untrustedLive = WebSocketLiveUpdates(server: named, token: token)
            let untrustedListening = Task { try await untrustedLive.listen(connected: { untrustedConnected.withLock { $0 = true } }, changed: { _ in }) }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(20))
                untrustedListening.cancel()
            }
            let untrustedEnded = await untrustedListening.result
            watchdog.cancel()
            #expect(!untrustedConnected.current, "the untrusting wss client connected")
            let liveError = String(reflecting: untrustedEnded)
            #expect(liveError.contains("handshakeFailed") && liveError.contains("CERTIFICATE_VERIFY_FAILED"), "\(liveError)")
            // curl without the file: the certificate is refused (exit 60), nothing is read.
            let untrustedCurl = try await Curl.run([url.absoluteString + "/v1/health"])
            #expect(untrustedCurl.exitStatus == 60 && untrustedCurl.output.isEmpty, "\(untrustedCurl)")
            // Plain HTTP on the TLS port: no answer.
            let plain = try await Curl.run(["http://127.0.0.1:\(url.port ?? 0)/v1/health"])
            #expect(plain.exitStatus != 0 && !plain.output.contains("ok"), "\(plain)")
        }
    }

    @Test("pathbase serve refuses a certificate file that is not PEM, with the file named")
    func badCertificate() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pathbase-tls-\(UUID().uuidString).pem").path
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await ServeProcess.run(["serve", "--database", ServerTestFiles.newPath(), "--port", "0", "--tls-certificate", file, "--tls-key", file])
        #expect(result.status != 0)
        #expect(result.errors.contains(file), "\(result.errors)")
    }

    @Test("pathbase serve refuses a key of another certificate and a missing file, naming the files and what is wrong (issue 61)")
    func mismatchedAndMissingFiles() async throws {
        let first = try TestCertificate()
        let second = try TestCertificate()
        defer {
            first.remove()
            second.remove()
        }
        let mismatched = try await ServeProcess.run(
            ["serve", "--database", ServerTestFiles.newPath(), "--port", "0", "--tls-certificate", first.certificate, "--tls-key", second.key])
        #expect(mismatched.status != 0)
        #expect(mismatched.errors.contains(first.certificate) && mismatched.errors.contains(second.key), "\(mismatched.errors)")
        #expect(mismatched.errors.contains("do not match"), "\(mismatched.errors)")
        let absent = first.certificate + ".absent"
        let missing = try await ServeProcess.run(["serve", "--database", ServerTestFiles.newPath(), "--port", "0", "--tls-certificate", absent, "--tls-key", first.key])
        #expect(missing.status != 0)
        #expect(missing.errors.contains(absent) && missing.errors.contains("does not exist"), "\(missing.errors)")
        #expect(!missing.errors.contains("not a PEM"), "\(missing.errors)")
    }
}
