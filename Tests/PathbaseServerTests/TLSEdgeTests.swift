import Foundation
import Pathbase
import PathbaseLiveSync
import PathbaseServer
import PathbaseTestSupport
import Testing

/// What a client that trusts a certificate file refuses (issue 67, item 7): a certificate for
/// another host name, an expired one, and a trust file it cannot read. Each push is refused
/// before a record leaves the client; the same push with a good certificate is stored.
@Suite("TLS: a wrong host name, an expired certificate, an unreadable trust file", .enabled(if: TestCertificate.canMake))
struct TLSEdgeTests {

    /// Pushes one record over HTTPS to an in-process server serving `served`, through a
    /// transport that trusts `trusted` (the served certificate when nil) and addresses the
    /// server as `localhost`; returns the push's error, if any, and how many records the
    /// server then holds. A refused connection is retried until `timeout`, when the client
    /// reports the last handshake's error.
    private func push(serving served: TestCertificate, trusting trusted: String? = nil, timeout: TimeInterval = 5) async throws -> (error: (any Error)?, stored: Int) {
        let server = SyncServer(store: InMemorySyncServerStore())
        let token = try await server.addAccount(named: "alice")
        return try await withHTTPServer(server, tls: SyncServerTLS(certificateFile: served.certificate, keyFile: served.key)) { url in
            let named = try #require(URL(string: "https://localhost:\(url.port ?? 0)"))
            let transport = HTTPSyncTransport(server: named, token: token, timeout: timeout, trustedCertificatesFile: trusted ?? served.certificate)
            let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
            let record = try SyncRecord(Record(path: Path(model: 6, instance: 1, property: 1), timestamp: Timestamp(time: now, counter: 0, replica: 4), value: "over tls"))
            var failure: (any Error)?
            do {
                _ = try await transport.push(PushRequest(replica: 4, records: [record]))
            } catch {
                failure = error
            }
            return (failure, try await server.pull(PullRequest(after: 0, limit: 10), token: token).records.count)
        }
    }

    @Test("a trusted certificate for the host is used: the push is stored (the control for the cases below)")
    func matchingCertificate() async throws {
        let tls = try TestCertificate()
        defer { tls.remove() }
        let (error, stored) = try await push(serving: tls, timeout: 60)
        #expect(error == nil, "\(String(reflecting: error))")
        #expect(stored == 1)
    }

    @Test("a trusted certificate for another host name is refused: the host name is checked, nothing is stored")
    func wrongHostName() async throws {
        let tls = try TestCertificate(names: "DNS:sync.example.invalid")
        defer { tls.remove() }
        let (error, stored) = try await push(serving: tls)
        let description = String(reflecting: error)
        #expect(error != nil)
        #expect(description.contains("failedToValidateHostname") && description.contains("localhost"), "\(description)")
        #expect(stored == 0)
    }

    @Test("a trusted certificate that has expired is refused, nothing is stored")
    func expiredCertificate() async throws {
        let tls = try TestCertificate(expired: true)
        defer { tls.remove() }
        let (error, stored) = try await push(serving: tls)
        #expect(error != nil)
        #expect(String(reflecting: error).contains("CERTIFICATE_VERIFY_FAILED"), "\(String(reflecting: error))")
        #expect(stored == 0)
    }

    @Test("a trust file that is missing, or holds no certificate, fails the push with an error, nothing is stored", arguments: ["missing", "not PEM"])
    func unreadableTrustFile(kind: String) async throws {
        let tls = try TestCertificate()
        defer { tls.remove() }
        let trust = URL(fileURLWithPath: tls.certificate).deletingLastPathComponent().appendingPathComponent("trust.pem").path
        if kind == "not PEM" { try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: trust)) }
        let (error, stored) = try await push(serving: tls, trusting: trust)
        #expect(String(reflecting: error).contains(kind == "missing" ? "noSuchFilesystemObject" : "NO_CERTIFICATE_OR_CRL_FOUND"), "\(String(reflecting: error))")
        #expect(stored == 0)
    }
}
