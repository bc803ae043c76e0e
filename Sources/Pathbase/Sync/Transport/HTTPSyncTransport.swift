import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``SyncTransport`` to a `pathbase serve` server over HTTP, with an account's token.
///
/// ```swift
/// let transport = HTTPSyncTransport(server: URL(string: "http://127.0.0.1:8080")!, token: token)
/// let replica = try Replica(database: database, transport: transport)
/// try await replica.sync()
/// ```
///
/// Sends ``PushRequest`` and ``PullRequest`` as JSON to `POST /v1/push` and `/v1/pull`,
/// relays commands through `/v1/commands/…`, and moves asset content through
/// `/v1/assets/…` (an ``AssetTransport``), with `Authorization: Bearer TOKEN`. A refusal (any 4xx or 5xx) throws
/// ``SyncTransportError/refused(status:reason:)`` with the server's reason; a failed
/// connection throws URLSession's error. Either way the replica keeps its records pending
/// and its cursor where it was, so the next sync continues.
///
/// On Linux, cancelling the calling task does not cancel a request under way: it ends with
/// its answer or its `timeout` (Foundation there can crash when a request is cancelled as
/// its connection fails).
public struct HTTPSyncTransport: CommandRelayTransport, AssetTransport {

    /// The server's base address, such as `http://127.0.0.1:8080`.
    public let server: URL

    /// The account's bearer token.
    public let token: String

    /// How long one request may take, in seconds.
    public let timeout: TimeInterval

    /// Sends one request and returns the body and HTTP status of the answer.
    public typealias Exchange = @Sendable (URLRequest) async throws -> (body: Data, status: Int)

    /// What sends the requests; `nil` for `URLSession.shared`.
    private let sendRequest: Exchange?

    /// A transport to a server for one account.
    public init(server: URL, token: String, timeout: TimeInterval = 60) {
        self.init(server: server, token: token, timeout: timeout, exchange: nil)
    }

    /// A transport to a server for one account whose requests `exchange` sends instead of
    /// `URLSession.shared`: for an HTTP client that URLSession cannot stand in for, such as
    /// one that trusts a private certificate on Linux (`PathbaseLiveSync` has
    /// `HTTPSyncTransport(server:token:trustedCertificatesFile:)`).
    public init(server: URL, token: String, timeout: TimeInterval = 60, exchange: Exchange?) {
        self.server = server
        self.token = token
        self.timeout = timeout
        self.sendRequest = exchange
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await send(request, to: SyncEndpoint.push)
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await send(request, to: SyncEndpoint.pull)
    }

    public func relay(_ request: CommandRelayRequest) async throws -> CommandTicket {
        try await send(request, to: SyncEndpoint.sendCommand)
    }

    public func inbox(_ request: CommandInboxRequest) async throws -> CommandInboxResponse {
        try await send(request, to: SyncEndpoint.commandInbox)
    }

    public func answer(_ answer: CommandAnswer) async throws -> CommandTicket {
        try await send(answer, to: SyncEndpoint.answerCommand)
    }

    public func result(of ticket: CommandTicket) async throws -> CommandResultResponse {
        try await send(ticket, to: SyncEndpoint.commandResult)
    }

    /// `POST /v1/assets/missing`.
    public func missingAssets(_ request: AssetInventoryRequest) async throws -> AssetInventoryResponse {
        try await send(request, to: SyncEndpoint.missingAssets)
    }

    /// `PUT /v1/assets/HASH?size=SIZE&offset=OFFSET` with the chunk as the body.
    public func uploadAssetChunk(_ chunk: Data, of asset: Asset, at offset: Int64) async throws -> AssetUploadState {
        var request = try request(to: SyncEndpoint.asset(asset.hash), query: [URLQueryItem(name: "size", value: String(asset.size)), URLQueryItem(name: "offset", value: String(offset))])
        request.httpMethod = "PUT"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = chunk
        return try decode(try await exchange(request))
    }

    /// `GET /v1/assets/HASH` with `Range: bytes=OFFSET-END`; an asset the server does not
    /// hold throws ``AssetError/notOnServer(_:)``.
    public func assetChunk(of asset: Asset, from offset: Int64, maxCount: Int) async throws -> Data {
        guard offset < asset.size, maxCount > 0 else { return Data() }
        var request = try request(to: SyncEndpoint.asset(asset.hash))
        request.httpMethod = "GET"
        let end = min(asset.size, offset + Int64(maxCount)) - 1
        request.setValue("bytes=\(offset)-\(end)", forHTTPHeaderField: "Range")
        do {
            return try await exchange(request)
        } catch SyncTransportError.refused(status: 404, _) {
            throw AssetError.notOnServer(asset)
        }
    }

    private func send<Answer: Decodable>(_ body: some Encodable, to endpoint: String) async throws -> Answer {
        var request = try request(to: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        return try decode(try await exchange(request))
    }

    /// A request to an endpoint of the server, with the token.
    private func request(to endpoint: String, query: [URLQueryItem] = []) throws -> URLRequest {
        var url = server.appendingPathComponent(endpoint)
        if !query.isEmpty {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw SyncTransportError.invalidResponse("\(url) is not a valid address")
            }
            components.queryItems = query
            url = components.url ?? url
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private func decode<Answer: Decodable>(_ data: Data) throws -> Answer {
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw SyncTransportError.invalidResponse(String(describing: error))
        }
    }

    /// Sends a request; returns the body of a 2xx answer and throws the server's reason
    /// for any other.
    private func exchange(_ request: URLRequest) async throws -> Data {
        let (data, status) = if let sendRequest { try await sendRequest(request) } else { try await Self.sendThroughURLSession(request) }
        guard (200 ..< 300).contains(status) else {
            throw SyncTransportError.refused(status: status, reason: Self.reason(in: data))
        }
        return data
    }

    /// Sends a request with `URLSession.shared`.
    private static func sendThroughURLSession(_ request: URLRequest) async throws -> (body: Data, status: Int) {
        #if canImport(FoundationNetworking)
            // Linux's URLSession can crash when a task is cancelled while its connection fails
            // (swift-corelibs-foundation issue 3296), so a cancelled sync (AutomaticSync.stop)
            // does not cancel the request: it ends with its answer or its timeout.
            let task = Task { try await URLSession.shared.data(for: request) }
            let (data, response) = try await task.value
        #else
            let (data, response) = try await URLSession.shared.data(for: request)
        #endif
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// The `reason` of a JSON error body, or the body as text.
    private static func reason(in data: Data) -> String {
        struct Body: Decodable { let reason: String }
        if let body = try? JSONDecoder().decode(Body.self, from: data) { return body.reason }
        return String(decoding: data.prefix(500), as: UTF8.self)
    }
}

/// Why a sync server did not answer a request as expected; nothing of the request was
/// applied on the replica.
///
/// ```swift
/// do {
///     try await replica.sync()
/// } catch SyncTransportError.refused(let status, let reason) {
///     print("the server refused (\(status)): \(reason)")
/// }
/// ```
public enum SyncTransportError: Error, Hashable, Sendable, LocalizedError {

    /// The server answered with an error status and this reason: 401 for a wrong token,
    /// 400 for a request it cannot read, 5xx when it failed itself (worth retrying).
    case refused(status: Int, reason: String)

    /// The server answered 2xx with a body that is not the expected answer.
    case invalidResponse(String)

    /// Whether retrying later may succeed: a failure of the server (5xx), a timeout (408),
    /// too many requests (429), or an answer that could not be read; not a refusal of the
    /// request itself.
    public var isTransient: Bool {
        switch self {
        case .refused(let status, _): status >= 500 || status == 408 || status == 429
        case .invalidResponse: true
        }
    }

    public var errorDescription: String? {
        switch self {
        case .refused(let status, let reason): "The sync server refused the request (HTTP \(status)): \(reason)"
        case .invalidResponse(let reason): "The sync server's answer cannot be read: \(reason)"
        }
    }
}
