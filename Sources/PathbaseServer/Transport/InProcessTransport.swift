import Pathbase

/// A ``SyncTransport`` that calls a ``SyncServer`` in the same process: for tests,
/// simulations, and apps that sync two databases they both hold.
///
/// ```swift
/// let server = SyncServer(store: InMemorySyncServerStore())
/// let token = try await server.addAccount(named: "alice")
/// let replica = try Replica(database: InMemoryHistoryDatabase(), transport: InProcessTransport(server: server, token: token))
/// try await replica.sync()
/// ```
public struct InProcessTransport: CommandRelayTransport {

    /// The server called.
    public let server: SyncServer

    /// The account's bearer token.
    public let token: String

    /// A transport to a server for one account.
    public init(server: SyncServer, token: String) {
        self.server = server
        self.token = token
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await server.push(request, token: token)
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await server.pull(request, token: token)
    }

    public func relay(_ request: CommandRelayRequest) async throws -> CommandTicket {
        try await server.relay(request, token: token)
    }

    public func inbox(_ request: CommandInboxRequest) async throws -> CommandInboxResponse {
        try await server.inbox(request, token: token)
    }

    public func answer(_ answer: CommandAnswer) async throws -> CommandTicket {
        try await server.answer(answer, token: token)
    }

    public func result(of ticket: CommandTicket) async throws -> CommandResultResponse {
        try await server.result(of: ticket, token: token)
    }
}
