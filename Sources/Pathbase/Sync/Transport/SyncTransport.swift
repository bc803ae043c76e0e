/// How a ``Replica`` reaches a sync server: push a batch of records, pull a page.
///
/// ```swift
/// struct LoopbackTransport: SyncTransport {
///     let server: SyncServer
///     let token: String
///     func push(_ request: PushRequest) async throws -> PushResponse { try await server.push(request, token: token) }
///     func pull(_ request: PullRequest) async throws -> PullResponse { try await server.pull(request, token: token) }
/// }
/// ```
///
/// `PathbaseServer`'s `InProcessTransport` calls a server in the same process; an HTTP
/// client implements the same two functions. A transport may throw for any failure (lost
/// connection, a refused request): the replica keeps its records pending and its cursor
/// where it was, so the next sync repeats what did not arrive.
public protocol SyncTransport: Sendable {

    /// Sends records and returns which the server stored and which it refused.
    func push(_ request: PushRequest) async throws -> PushResponse

    /// Returns the records after a cursor, one bounded page.
    func pull(_ request: PullRequest) async throws -> PullResponse
}
