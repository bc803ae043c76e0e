import Foundation
import Pathbase

/// A ``SyncServerStore`` that also keeps commands relayed between an account's replicas
/// until their target answers, and the answers until the sender fetches them.
///
/// ```swift
/// let id = try await store.enqueue(CommandRelayRequest(sender: 1, target: 2, message: data), in: account)
/// let waiting = try await store.waitingCommands(for: [2], in: account, limit: 10)
/// try await store.answer(id, by: 2, response: answer, in: account)
/// let response = try await store.response(to: id, in: account)
/// ```
///
/// Command numbers count an account's commands, from 1 in a new store: they are unique
/// within the account and tell nothing of other accounts, whose commands an account never
/// sees. An answer is kept once: a repeated answer changes nothing.
public protocol CommandQueueStore: SyncServerStore {

    /// Keeps a command for its target; returns its number.
    func enqueue(_ request: CommandRelayRequest, in account: AccountID) async throws -> Int64

    /// The unanswered commands for any of `targets`, oldest first, at most `limit`.
    func waitingCommands(for targets: [UInt32], in account: AccountID, limit: Int) async throws -> [RelayedCommand]

    /// Keeps the target's answer to a command; throws ``SyncServerError/unknownCommand(_:)``
    /// if the account has no such command for `replica`.
    func answer(_ id: Int64, by replica: UInt32, response: Data, in account: AccountID) async throws

    /// The answer to a command, `nil` while there is none; throws
    /// ``SyncServerError/unknownCommand(_:)`` if the account has no such command.
    func response(to id: Int64, in account: AccountID) async throws -> Data?
}
