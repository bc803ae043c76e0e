import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOSSL
import Pathbase

extension HTTPSyncTransport {

    /// A transport to an `https://` server whose certificate chains to one in
    /// `trustedCertificatesFile` (PEM) instead of the system's trust store: for a server
    /// with a private or self-signed certificate, as ``WebSocketLiveUpdates`` trusts one
    /// for `wss://`.
    ///
    /// ```swift
    /// let url = URL(string: "https://sync.example.internal:8443")!
    /// let transport = HTTPSyncTransport(server: url, token: token, trustedCertificatesFile: "/etc/pathbase/ca.pem")
    /// let live = WebSocketLiveUpdates(server: url, token: token, trustedCertificatesFile: "/etc/pathbase/ca.pem")
    /// ```
    ///
    /// URLSession cannot be told to trust a file on Linux, so these requests go through
    /// AsyncHTTPClient's shared client with the file as the only trust root; the host name
    /// is still checked against the certificate. A file that cannot be read fails each
    /// request with NIOSSL's error, naming no record as sent.
    public init(server: URL, token: String, timeout: TimeInterval = 60, trustedCertificatesFile: String) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(trustedCertificatesFile)
        let configuration = tls
        self.init(
            server: server, token: token, timeout: timeout,
            exchange: { request in
                try await TrustingExchange.send(request, tls: configuration, timeout: timeout)
            })
    }
}

/// One request through AsyncHTTPClient with a TLS configuration of its own.
private enum TrustingExchange {

    /// The largest answer read: a pull page or an asset chunk is far smaller.
    static let maximumAnswer = 256 << 20

    static func send(_ request: URLRequest, tls: TLSConfiguration, timeout: TimeInterval) async throws -> (body: Data, status: Int) {
        guard let url = request.url else { throw SyncTransportError.invalidResponse("a request without an address") }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.httpBody {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        outgoing.tlsConfiguration = tls
        let response = try await HTTPClient.shared.execute(outgoing, timeout: .milliseconds(Int64(timeout * 1000)))
        let body = try await response.body.collect(upTo: maximumAnswer)
        return (Data(body.readableBytesView), Int(response.status.code))
    }
}
