import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// `pathbase serve` as a library: a ``SyncServer`` behind HTTP on a host and port.
///
/// ```swift
/// let server = SyncServer(store: try SQLiteSyncServerStore(path: "server.sqlite"))
/// let http = SyncHTTPServer(server: server, host: "127.0.0.1", port: 8080)
/// try await http.run() // until SIGTERM or SIGINT, then a graceful shutdown
/// ```
///
/// Besides the HTTP routes of ``SyncRoutes``, it serves the live WebSocket `GET /v1/live`
/// (`LiveNotice` frames), and on a store several processes share
/// (``AppendNotifyingStore``) it relays the other processes' appends to its sockets.
///
/// Port 0 picks a free port; `onListening` is told the one in use (tests use it). For a
/// server inside a larger program, ``application(onListening:)`` gives the Hummingbird
/// application to add to a service group.
public struct SyncHTTPServer: Sendable {

    /// The server that answers the requests.
    public let server: SyncServer

    /// The address to listen on; `127.0.0.1` by default, only this machine.
    public let host: String

    /// The port to listen on; 0 for any free one.
    public let port: Int

    /// The largest request body taken, in bytes.
    public let maximumBodySize: Int

    /// Where requests and lifecycle events are logged.
    public let logger: Logger

    /// The bearer token of `GET /v1/metrics`; `nil` disables the endpoint.
    public let metricsToken: String?

    /// Timeouts, header size and connection counts.
    public let connectionLimits: ConnectionLimits

    /// What a request body may hold and how many requests of one account run at once.
    public let requestLimits: RequestLimits

    /// The certificate and key to serve HTTPS and WSS with; `nil` for plain HTTP.
    public let tls: SyncServerTLS?

    /// The connections open now and the ones the limits closed.
    let connections = ConnectionCounter()

    /// Creates the HTTP front of a sync server.
    public init(
        server: SyncServer, host: String = "127.0.0.1", port: Int, maximumBodySize: Int = 8 << 20, metricsToken: String? = nil, connectionLimits: ConnectionLimits = ConnectionLimits(),
        requestLimits: RequestLimits = RequestLimits(), tls: SyncServerTLS? = nil, logger: Logger = Logger(label: "pathbase.serve")
    ) {
        self.server = server
        self.host = host
        self.port = port
        self.maximumBodySize = maximumBodySize
        self.metricsToken = metricsToken
        self.connectionLimits = connectionLimits
        self.requestLimits = requestLimits
        self.tls = tls
        self.logger = logger
    }

    /// The Hummingbird application; `onListening` gets the port once it listens. Throws
    /// ``SyncServerTLSError`` when the TLS files cannot be read.
    ///
    /// ```swift
    /// let application = try http.application { port in print("listening on \(port)") }
    /// try await application.runService()
    /// ```
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let router = Router()
        router.middlewares.add(RedactingLogMiddleware())
        router.middlewares.add(RequestCountingMiddleware(activity: server.activity))
        SyncRoutes(server: server, maximumBodySize: maximumBodySize, metricsToken: metricsToken, limits: requestLimits).register(on: router)
        let webSockets = Router(context: BasicWebSocketRequestContext.self)
        webSockets.middlewares.add(RedactingLogMiddleware())
        webSockets.middlewares.add(RequestCountingMiddleware(activity: server.activity))
        LiveRoute(server: server).register(on: webSockets, refusals: router)
        let logger = self.logger
        // Several processes on one store: each relays the others' appends to its sockets.
        let services: [any Service] =
            (server.store as? any AppendNotifyingStore).map {
                [AppendListener(server: server, store: $0, logger: logger)]
            } ?? []
        return Application(
            router: router,
            server: try serverBuilder(webSockets: webSockets),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "pathbase"),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["port": "\(port)"])
                await onListening(port)
            },
            logger: logger
        )
    }

    /// HTTP/1.1 with the WebSocket upgrade, each connection behind a ``ConnectionGuard``
    /// (inside TLS when there is a certificate), with the idle timeout and header limits.
    private func serverBuilder(webSockets: Router<BasicWebSocketRequestContext>) throws -> HTTPServerBuilder {
        let limits = connectionLimits
        let counter = connections
        let tlsConfiguration = try tls?.configuration()
        let webSocketResponder = webSockets.buildResponder()
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(maxHeaderFieldSize: limits.maximumHeaderSize, maxHeaderListSize: limits.maximumHeaderSize, maxHeaderFieldCount: 256)
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: TimeAmount(limits.idleTimeout), httpDecoderConfiguration: decoder),
            ws: WebSocketServerConfiguration(autoPing: .enabled(timePeriod: .seconds(30)))
        )
        return HTTPServerBuilder { responder in
            let base = HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration)
            let guarded = GuardedChildChannel(base: base, limits: limits, counter: counter)
            guard let tlsConfiguration else { return guarded }
            return try TLSChannel(guarded, tlsConfiguration: tlsConfiguration)
        }
    }

    /// Serves until SIGTERM or SIGINT, then finishes the requests under way and returns.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(onListening: onListening).runService()
    }
}
