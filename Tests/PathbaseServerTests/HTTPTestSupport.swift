import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Hummingbird
import Logging
import Pathbase
import PathbaseServer
import ServiceLifecycle

/// Runs `body` with a ``SyncHTTPServer`` serving `server` in this process on 127.0.0.1 and a
/// free port; shuts it down gracefully afterwards, also when `body` throws.
func withHTTPServer<Result>(
    _ server: SyncServer,
    maximumBodySize: Int = 8 << 20,
    metricsToken: String? = nil,
    connectionLimits: ConnectionLimits = ConnectionLimits(),
    requestLimits: RequestLimits = RequestLimits(),
    tls: SyncServerTLS? = nil,
    logger: Logger? = nil,
    _ body: (URL) async throws -> Result
) async throws -> Result {
    let logger =
        logger
        ?? {
            var logger = Logger(label: "pathbase.serve.test")
            logger.logLevel = .warning
            return logger
        }()
    let ports = AsyncStream<Int>.makeStream()
    let application = try SyncHTTPServer(
        server: server, port: 0, maximumBodySize: maximumBodySize, metricsToken: metricsToken,
        connectionLimits: connectionLimits, requestLimits: requestLimits, tls: tls, logger: logger
    )
    .application { port in ports.continuation.yield(port) }
    let group = ServiceGroup(services: [application], logger: logger)
    let running = Task { try await group.run() }
    var iterator = ports.stream.makeAsyncIterator()
    guard let port = await iterator.next(), let url = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)") else {
        running.cancel()
        throw HTTPTestFailure("the server did not start")
    }
    do {
        let result = try await body(url)
        await group.triggerGracefulShutdown()
        try await running.value
        return result
    } catch {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        throw error
    }
}

struct HTTPTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One raw HTTP exchange, for requests no transport would send.
struct RawExchange {
    let status: Int
    let body: Data
    var retryAfter: String? = nil

    /// The `reason` of a JSON error body, or nil.
    var reason: String? {
        struct Body: Decodable { let reason: String }
        return (try? JSONDecoder().decode(Body.self, from: body))?.reason
    }

    static func send(_ method: String = "POST", to url: URL, _ endpoint: String, token: String?, body: Data?, range: String? = nil, headers: [String: String] = [:]) async throws -> RawExchange {
        // The endpoint may carry a query: appended as text, not as a path component.
        guard let address = URL(string: url.absoluteString + "/" + endpoint) else { throw HTTPTestFailure("not an address: \(endpoint)") }
        var request = URLRequest(url: address)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let range { request.setValue(range, forHTTPHeaderField: "Range") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return RawExchange(status: http?.statusCode ?? 0, body: data, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"))
    }
}
