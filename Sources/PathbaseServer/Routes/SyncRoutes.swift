import Foundation
import Hummingbird
import HummingbirdAuth
import Pathbase

/// The sync server's HTTP endpoints, on a Hummingbird router.
///
/// ```swift
/// let router = Router()
/// SyncRoutes(server: server).register(on: router)
/// ```
///
/// - `POST /v1/push`: a JSON ``PushRequest`` → a JSON ``PushResponse``.
/// - `POST /v1/pull`: a JSON ``PullRequest`` → a JSON ``PullResponse``.
/// - `POST /v1/commands/send`, `/inbox`, `/answer`, `/result`: the command relay
///   (``CommandRelayRequest`` → ``CommandTicket``, ``CommandInboxRequest`` →
///   ``CommandInboxResponse``, ``CommandAnswer`` → ``CommandTicket``, ``CommandTicket`` →
///   ``CommandResultResponse``).
/// - `POST /v1/assets/missing`, `PUT /v1/assets/HASH`, `GET /v1/assets/HASH`: asset content,
///   in chunks (see ``registerAssets(on:)``).
/// - `GET /v1/live`: the live WebSocket (see ``SyncHTTPServer``); without an upgrade, 401
///   or 426 with a reason.
/// - `GET /v1/health`: `{"status":"ok"}`, without a token.
/// - `GET /v1/metrics`: a JSON ``MetricsReport`` (request counts, records, accounts, each
///   account's replica lag), with the server's metrics token (not an account's: the report
///   covers every account); 403 when the server has none.
///
/// Push and pull need `Authorization: Bearer TOKEN`. Every refusal is a 4xx (5xx when the
/// store fails) with a body `{"reason": "…"}` (``ErrorReason``), and changes nothing: a
/// body is decoded whole, and checked, before anything is stored.
public struct SyncRoutes: Sendable {

    /// The server the routes call.
    public let server: SyncServer

    /// The largest request body taken, in bytes; larger ones get 413.
    public let maximumBodySize: Int

    /// The bearer token `GET /v1/metrics` needs, or `nil` to refuse every metrics request.
    public let metricsToken: String?

    /// Every route, as `"METHOD /path"`: what the request counts of the metrics are kept by.
    public static let endpoints: Set<String> = [
        "GET /v1/health", "GET /v1/live", "GET /v1/metrics", "POST /v1/push", "POST /v1/pull",
        "POST /v1/assets/missing", "PUT /v1/assets/:hash", "GET /v1/assets/:hash",
    ]

    /// The endpoint a request's method and path count under: a path naming one asset counts
    /// as `/v1/assets/:hash`; `nil` for a path the server does not serve.
    static func endpoint(method: String, path: String) -> String? {
        var route = "\(method) \(path)"
        let assets = "/v1/assets/"
        if path.hasPrefix(assets), path.count == assets.count + 64 { route = "\(method) \(assets):hash" }
        return endpoints.contains(route) ? route : nil
    }

    /// Routes for a server; bodies up to 8 MB by default (a full push of 1000 records
    /// with values of a few kB); metrics only with `metricsToken`.
    public init(server: SyncServer, maximumBodySize: Int = 8 << 20, metricsToken: String? = nil) {
        self.server = server
        self.maximumBodySize = maximumBodySize
        self.metricsToken = metricsToken
    }

    /// Adds the endpoints to a router.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("v1/health") { _, _ in
            try ErrorReason.json(["status": "ok"], status: .ok)
        }
        router.get("v1/metrics") { request, _ in
            await metrics(request)
        }
        post("v1/push", on: router, server.push(_:token:))
        post("v1/pull", on: router, server.pull(_:token:))
        post("v1/commands/send", on: router, server.relay(_:token:))
        post("v1/commands/inbox", on: router, server.inbox(_:token:))
        post("v1/commands/answer", on: router, server.answer(_:token:))
        post("v1/commands/result", on: router, server.result(of:token:))
        registerAssets(on: router)
    }

    /// A `POST` endpoint whose JSON body the server call takes with the bearer token.
    func post<Context: RequestContext, Body: Decodable & Sendable, Answer: Encodable & Sendable>(
        _ path: String, on router: Router<Context>, _ call: @escaping @Sendable (Body, String) async throws -> Answer
    ) {
        router.post(RouterPath(path)) { request, _ in
            await respond(to: request, call)
        }
    }

    /// The metrics, only for the metrics token; hashes are compared, so the time taken
    /// tells nothing about the token.
    private func metrics(_ request: Request) async -> Response {
        do {
            guard let metricsToken else {
                throw ErrorReason(status: .forbidden, reason: "Metrics are disabled: start the server with a metrics token (PATHBASE_METRICS_TOKEN)")
            }
            guard let token = request.headers.bearer?.token, AccessToken.hash(token) == AccessToken.hash(metricsToken) else {
                throw ErrorReason(status: .unauthorized, reason: "Metrics need the server's metrics token")
            }
            return try ErrorReason.json(try await server.metrics(), status: .ok)
        } catch {
            return ErrorReason(error).response
        }
    }

    /// Authenticates, decodes the body, calls the server and encodes its answer; any
    /// failure becomes its status and reason.
    private func respond<Body: Decodable, Answer: Encodable>(
        to request: Request,
        _ call: @Sendable (Body, String) async throws -> Answer
    ) async -> Response {
        do {
            guard let token = request.headers.bearer?.token else {
                throw SyncServerError.unauthorized
            }
            var request = request
            let bytes: ByteBuffer
            do {
                bytes = try await request.collectBody(upTo: maximumBodySize)
            } catch {
                throw ErrorReason(status: .contentTooLarge, reason: "The request body is larger than \(maximumBodySize) bytes")
            }
            let body: Body
            do {
                body = try JSONDecoder().decode(Body.self, from: Data(bytes.readableBytesView))
            } catch {
                throw ErrorReason(status: .badRequest, reason: "The body is not a valid \(Body.self): \(ErrorReason.describe(decodingError: error))")
            }
            return try ErrorReason.json(try await call(body, token), status: .ok)
        } catch {
            return ErrorReason(error).response
        }
    }
}
