import Foundation
import Pathbase

/// The command relay: a replica leaves a `@Command` call for the replica that owns its
/// instance; the owner fetches the commands waiting for it, runs them and answers; the
/// sender fetches the answer. The server keeps commands and answers (in a
/// ``CommandQueueStore``) without reading them, per account, until they are asked for.
///
/// ```swift
/// let ticket = try await server.relay(CommandRelayRequest(sender: 1, target: 2, message: data), token: token)
/// let waiting = try await server.inbox(CommandInboxRequest(replicas: [2], limit: 10), token: token)
/// _ = try await server.answer(CommandAnswer(id: ticket.id, replica: 2, response: done), token: token)
/// let result = try await server.result(of: ticket, token: token)
/// ```
extension SyncServer {

    /// The largest command or answer the server keeps, in bytes.
    public static let maximumCommandSize = 64 << 10

    /// Keeps a command for its target replica.
    public func relay(_ request: CommandRelayRequest, token: String) async throws -> CommandTicket {
        let (queue, account) = try await commandQueue(token)
        try Self.checkSize(request.message)
        return CommandTicket(id: try await queue.enqueue(request, in: account))
    }

    /// The commands waiting for a replica (by any of its ids), oldest first.
    public func inbox(_ request: CommandInboxRequest, token: String) async throws -> CommandInboxResponse {
        let (queue, account) = try await commandQueue(token)
        guard !request.replicas.isEmpty, request.replicas.count <= 100, request.limit >= 1 else { throw SyncServerError.invalidInbox }
        let limit = min(request.limit, maximumPageSize)
        return CommandInboxResponse(commands: try await queue.waitingCommands(for: request.replicas, in: account, limit: limit))
    }

    /// Keeps the target's answer to a command.
    public func answer(_ answer: CommandAnswer, token: String) async throws -> CommandTicket {
        let (queue, account) = try await commandQueue(token)
        try Self.checkSize(answer.response)
        try await queue.answer(answer.id, by: answer.replica, response: answer.response, in: account)
        return CommandTicket(id: answer.id)
    }

    /// The answer to a command, if its target sent one.
    public func result(of ticket: CommandTicket, token: String) async throws -> CommandResultResponse {
        let (queue, account) = try await commandQueue(token)
        return CommandResultResponse(response: try await queue.response(to: ticket.id, in: account))
    }

    private func commandQueue(_ token: String) async throws -> (any CommandQueueStore, AccountID) {
        let account = try await authenticate(token)
        guard let queue = store as? any CommandQueueStore else { throw SyncServerError.commandRelayUnavailable }
        return (queue, account)
    }

    private static func checkSize(_ data: Data) throws {
        guard data.count <= maximumCommandSize else {
            throw SyncServerError.commandTooLarge(size: data.count, maximum: maximumCommandSize)
        }
    }
}
