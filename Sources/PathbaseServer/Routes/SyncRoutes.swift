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
/// - `GET /v1/health`: `{"status":"ok"}`, without a token.
///
/// Push and pull need `Authorization: Bearer TOKEN`. Every refusal is a 4xx (5xx when the
/// store fails) with a body `{"reason": "…"}` (``ErrorReason``), and changes nothing: a
/// body is decoded whole, and checked, before anything is stored.
public struct SyncRoutes: Sendable {

    /// The server the routes call.
    public let server: SyncServer

    /// The largest request body taken, in bytes; larger ones get 413.
    public let maximumBodySize: Int

    /// Routes for a server; bodies up to 8 MB by default (a full push of 1000 records
    /// with values of a few kB).
    public init(server: SyncServer, maximumBodySize: Int = 8 << 20) {
        self.server = server
        self.maximumBodySize = maximumBodySize
    }

    /// Adds the endpoints to a router.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("v1/health") { _, _ in
            try ErrorReason.json(["status": "ok"], status: .ok)
        }
        router.post("v1/push") { request, _ in
            await respond(to: request) { (body: PushRequest, token) in
                try await server.push(body, token: token)
            }
        }
        router.post("v1/pull") { request, _ in
            await respond(to: request) { (body: PullRequest, token) in
                try await server.pull(body, token: token)
            }
        }
        router.post("v1/commands/send") { request, _ in
            await respond(to: request) { (body: CommandRelayRequest, token) in
                try await server.relay(body, token: token)
            }
        }
        router.post("v1/commands/inbox") { request, _ in
            await respond(to: request) { (body: CommandInboxRequest, token) in
                try await server.inbox(body, token: token)
            }
        }
        router.post("v1/commands/answer") { request, _ in
            await respond(to: request) { (body: CommandAnswer, token) in
                try await server.answer(body, token: token)
            }
        }
        router.post("v1/commands/result") { request, _ in
            await respond(to: request) { (body: CommandTicket, token) in
                try await server.result(of: body, token: token)
            }
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
