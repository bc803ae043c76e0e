import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOSSL
import Pathbase

/// The live line of a `pathbase serve` server: a WebSocket to `GET /v1/live` with an
/// account's token, on which the server tells of the account's new records.
///
/// ```swift
/// let url = URL(string: "http://127.0.0.1:8080")!
/// let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
/// let sync = AutomaticSync(replica: replica, interval: .seconds(60), live: WebSocketLiveUpdates(server: url, token: token))
/// ```
///
/// `http` becomes `ws` and `https` becomes `wss` (with the system's trusted certificates).
/// The client pings every ``pingInterval``, so a server that vanished without closing the
/// connection is noticed and `AutomaticSync` falls back to polling.
public struct WebSocketLiveUpdates: LiveUpdates {

    /// The server's base address, such as `http://127.0.0.1:8080`.
    public let server: URL

    /// The account's bearer token.
    public let token: String

    /// How often the client checks that the server still answers.
    public let pingInterval: Duration

    /// Where connection problems are logged.
    public let logger: Logger

    /// A PEM file of the certificates a `wss://` server's certificate must chain to, instead
    /// of the system's trust store: for a server with a private or self-signed certificate.
    public let trustedCertificatesFile: String?

    /// The live line of a server for one account.
    public init(server: URL, token: String, pingInterval: Duration = .seconds(30), trustedCertificatesFile: String? = nil, logger: Logger = Logger(label: "pathbase.live")) {
        self.server = server
        self.token = token
        self.pingInterval = pingInterval
        self.trustedCertificatesFile = trustedCertificatesFile
        self.logger = logger
    }

    /// The address of the WebSocket: the server's, with `ws`/`wss` and `/v1/live`.
    public var webSocketURL: URL {
        get throws {
            guard var parts = URLComponents(url: server.appendingPathComponent(SyncEndpoint.live), resolvingAgainstBaseURL: false) else {
                throw LiveUpdatesError.invalidServer(server)
            }
            switch parts.scheme?.lowercased() {
            case "http": parts.scheme = "ws"
            case "https": parts.scheme = "wss"
            case "ws", "wss": break
            default: throw LiveUpdatesError.invalidServer(server)
            }
            guard let url = parts.url else { throw LiveUpdatesError.invalidServer(server) }
            return url
        }
    }

    public func listen(connected: @escaping @Sendable () -> Void, changed: @escaping @Sendable (LiveNotice) -> Void) async throws {
        let url = try webSocketURL
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let configuration = WebSocketClientConfiguration(additionalHeaders: headers, autoPing: .enabled(timePeriod: pingInterval))
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCertificatesFile { tls.trustRoots = .file(trustedCertificatesFile) }
        try await WebSocketClient.connect(
            url: url.absoluteString,
            configuration: configuration,
            tlsConfiguration: url.scheme == "wss" ? tls : nil,
            logger: logger
        ) { inbound, _, _ in
            var first = true
            for try await message in inbound.messages(maxSize: 1 << 12) {
                guard case .text(let text) = message,
                    let notice = try? JSONDecoder().decode(LiveNotice.self, from: Data(text.utf8))
                else {
                    // Not a server of ours, or a newer one: end the line, polling takes over.
                    throw LiveUpdatesError.invalidNotice(String(describing: message).prefix(200).description)
                }
                // The server's first frame says it has subscribed: nothing is missed after it.
                if first { connected() }
                first = false
                changed(notice)
            }
        }
    }
}

/// Why a live line could not be used.
public enum LiveUpdatesError: Error, Hashable, Sendable, LocalizedError {

    /// The server address is not an `http`, `https`, `ws` or `wss` URL.
    case invalidServer(URL)

    /// The server sent a frame that is not a `LiveNotice`.
    case invalidNotice(String)

    public var errorDescription: String? {
        switch self {
        case .invalidServer(let url): "The server address \(url) is not an http(s) or ws(s) URL"
        case .invalidNotice(let frame): "The server sent a live notice that could not be read: \(frame)"
        }
    }
}
