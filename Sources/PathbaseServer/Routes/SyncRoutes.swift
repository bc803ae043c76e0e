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
/// - `POST /v1/push`: a JSON `PushRequest` → a JSON `PushResponse`.
/// - `POST /v1/pull`: a JSON `PullRequest` → a JSON `PullResponse`.
/// - `POST /v1/commands/send`, `/inbox`, `/answer`, `/result`: the command relay
///   (`CommandRelayRequest` → `CommandTicket`, `CommandInboxRequest` →
///   `CommandInboxResponse`, `CommandAnswer` → `CommandTicket`, `CommandTicket` →
///   `CommandResultResponse`).
/// - `POST /v1/assets/missing`, `PUT /v1/assets/HASH`, `GET /v1/assets/HASH`: asset content,
///   in chunks (see `registerAssets(on:)`).
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

    /// What a body may hold and how many requests of one account are answered at once.
    public let limits: RequestLimits

    /// The requests of each account under way.
    let admission: AccountAdmission

    /// Routes for a server; bodies up to 8 MB by default (a full push of 1000 records
    /// with values of a few kB); metrics only with `metricsToken`.
    public init(server: SyncServer, maximumBodySize: Int = 8 << 20, metricsToken: String? = nil, limits: RequestLimits = RequestLimits()) {
        self.server = server
        self.maximumBodySize = maximumBodySize
        self.metricsToken = metricsToken
        self.limits = limits
        self.admission = AccountAdmission(maximum: limits.maximumConcurrentRequestsPerAccount)
    }

    /// Adds the endpoints to a router.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get(RouterPath(SyncEndpoint.health)) { _, _ in
            try ErrorReason.json(["status": "ok"], status: .ok)
        }
        router.get(RouterPath(SyncEndpoint.metrics)) { request, _ in
            await metrics(request)
        }
        post(SyncEndpoint.push, on: router) { (push: CheckedPush, token: String) in
            try await push.answer(from: server, token: token)
        }
        post(SyncEndpoint.pull, on: router, server.pull(_:token:))
        post(SyncEndpoint.sendCommand, on: router, server.relay(_:token:))
        post(SyncEndpoint.commandInbox, on: router, server.inbox(_:token:))
        post(SyncEndpoint.answerCommand, on: router, server.answer(_:token:))
        post(SyncEndpoint.commandResult, on: router, server.result(of:token:))
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

    /// Authenticates from the headers alone (401 before a byte of the body is read), takes
    /// a place among the account's requests (429), reads the body (413), scans it against
    /// ``limits`` (400/413), decodes it, calls the server and encodes its answer; any
    /// failure becomes its status and reason.
    private func respond<Body: Decodable, Answer: Encodable>(
        to request: Request,
        _ call: @Sendable (Body, String) async throws -> Answer
    ) async -> Response {
        do {
            return try await admitted(request) { token in
                var request = request
                let bytes = try await body(of: &request, upTo: maximumBodySize)
                try limits.check(json: bytes)
                let body: Body
                do {
                    body = try JSONDecoder().decode(Body.self, from: Data(bytes.readableBytesView))
                } catch {
                    let name = (Body.self as? any NamedRequestBody.Type)?.bodyName ?? "\(Body.self)"
                    throw ErrorReason(status: .badRequest, reason: "The body is not a valid \(name): \(ErrorReason.describe(decodingError: error))")
                }
                return try ErrorReason.json(try await call(body, token), status: .ok)
            }
        } catch {
            return ErrorReason(error).response
        }
    }

    /// Runs `answer` with the request's bearer token once the token is known to belong to an
    /// account and the account has fewer than its maximum of requests under way; throws 401
    /// (nothing of the body read) or 429 otherwise.
    func admitted(_ request: Request, _ answer: (String) async throws -> Response) async throws -> Response {
        guard let token = request.headers.bearer?.token else {
            throw SyncServerError.unauthorized
        }
        let account = try await server.authenticate(token)
        try admission.enter(account)
        defer { admission.leave(account) }
        return try await SyncServer.$admittedAccount.withValue(.init(token: token, account: account)) {
            try await answer(token)
        }
    }

    /// The body, at most `maximum` bytes (413 past that).
    func body(of request: inout Request, upTo maximum: Int, tooLarge: String? = nil) async throws -> ByteBuffer {
        do {
            return try await request.collectBody(upTo: maximum)
        } catch {
            throw ErrorReason(status: .contentTooLarge, reason: tooLarge ?? "The request body is larger than \(maximum) bytes")
        }
    }
}

/// A push body with the number of elements of each record's path: a path is
/// `[model, instance, property]`, and ``Path``'s decoding stops after three, so a record
/// whose path has more (or fewer) is rejected here with a reason instead of being stored
/// under another path.
struct CheckedPush: Decodable, Sendable, NamedRequestBody {

    static let bodyName = "PushRequest"

    let request: PushRequest

    /// The indexes of the records whose path does not have three elements, with the count.
    let malformed: [Int: Int]

    private enum CodingKeys: String, CodingKey { case records }

    private struct PathLength: Decodable {
        let count: Int?
        private enum CodingKeys: String, CodingKey { case path }
        init(from decoder: any Decoder) throws {
            count = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .path).count
        }
    }

    init(from decoder: any Decoder) throws {
        request = try PushRequest(from: decoder)
        let lengths = try decoder.container(keyedBy: CodingKeys.self).decode([PathLength].self, forKey: .records)
        var malformed: [Int: Int] = [:]
        for (index, length) in lengths.enumerated() where length.count != 3 {
            malformed[index] = length.count ?? 0
        }
        self.malformed = malformed
    }

    /// The server's answer to the well-formed records, with the others rejected.
    func answer(from server: SyncServer, token: String) async throws -> PushResponse {
        guard !malformed.isEmpty else { return try await server.push(request, token: token) }
        var kept = request
        kept.records = request.records.enumerated().filter { malformed[$0.offset] == nil }.map(\.element)
        var response = try await server.push(kept, token: token)
        for (index, count) in malformed.sorted(by: { $0.key < $1.key }) {
            response.rejected.append(.init(key: request.records[index].key, reason: "The record's path has \(count) elements; a path is [model, instance, property]"))
        }
        return response
    }
}

/// A body type decoded under another name than the one a client knows it by.
protocol NamedRequestBody {
    static var bodyName: String { get }
}
