import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import ServiceLifecycle
import Pathbase

/// `GET /v1/live`: a WebSocket on which the server tells a replica each time its account's
/// log grows, as a text frame ``LiveNotice`` (`{"cursor":1042}`); the records themselves
/// are pulled with `POST /v1/pull`. The first frame, sent once the connection is
/// subscribed, carries the latest cursor this process published for the account (0 if
/// none): a client that syncs on receiving it misses nothing.
///
/// ```swift
/// let webSockets = Router(context: BasicWebSocketRequestContext.self)
/// LiveRoute(server: server).register(on: webSockets, refusals: router)
/// ```
///
/// The upgrade request needs `Authorization: Bearer TOKEN`. A request that is not upgraded
/// (a wrong token, or plain HTTP) gets a 401 or 426 with a JSON reason. Whatever the client
/// sends is read and ignored; the socket stays open until either side closes it.
struct LiveRoute: Sendable {

    static let path = SyncEndpoint.live

    let server: SyncServer

    /// Adds the WebSocket to `webSockets` and the answer for requests it does not upgrade
    /// to `refusals`, the HTTP router.
    func register<Context: RequestContext>(on webSockets: Router<BasicWebSocketRequestContext>, refusals: Router<Context>) {
        webSockets.ws(RouterPath(Self.path)) { request, _ in
            try await account(of: request) == nil ? .dontUpgrade : .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let account = try await account(of: context.request) else { return }
            let changes = self.server.changes
            let notices = changes.subscribe(account)
            // The first frame says the subscription stands: from here on no append is
            // missed, and the client's sync on connecting covers the ones before.
            try await outbound.write(.text(try Self.frame(changes.latestPublished(for: account))))
            // Ended by a graceful shutdown (SIGTERM) too: an open live line would otherwise
            // keep the server from stopping, and every rolling restart waiting.
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup { group in
                    group.addTask {
                        // Reading is what notices a close; the client has nothing to say.
                        for try await _ in inbound {}
                    }
                    group.addTask {
                        for await cursor in notices {
                            try await outbound.write(.text(try Self.frame(cursor)))
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
        refusals.get(RouterPath(Self.path)) { request, _ -> Response in
            do {
                guard try await account(of: request) != nil else { throw SyncServerError.unauthorized }
                throw ErrorReason(status: .upgradeRequired, reason: "GET /\(Self.path) is a WebSocket: connect with `Upgrade: websocket`")
            } catch {
                return ErrorReason(error).response
            }
        }
    }

    /// The text frame of a notice.
    private static func frame(_ cursor: Int64) throws -> String {
        String(decoding: try JSONEncoder().encode(LiveNotice(cursor: cursor)), as: UTF8.self)
    }

    /// The account of the request's bearer token, or `nil`.
    private func account(of request: Request) async throws -> AccountID? {
        guard let token = request.headers.bearer?.token else { return nil }
        return try await server.store.account(tokenHash: AccessToken.hash(token))
    }
}
