import Foundation
import Pathbase
import PathbaseServer
import PostgresNIO

/// The command relay's queue in PostgreSQL: the `commands` table (schema versions 2 and 4).
///
/// ```swift
/// let id = try await store.enqueue(CommandRelayRequest(sender: 1, target: 2, message: data), in: account)
/// ```
///
/// Each call is one statement, so it needs no transaction: command numbers count the
/// account's commands (its row's `last_command`, locked by the statement that takes the
/// next one, so server processes sharing the database never hand out one twice), a
/// replica's inbox reads the partial index of
/// unanswered commands, and the first answer is kept (a repeated one changes nothing, as a
/// target that lost the server's reply sends it again).
extension PostgresSyncServerStore {

    public func enqueue(_ request: CommandRelayRequest, in account: AccountID) async throws -> Int64 {
        try await run { [self] in
            // The account's counter is taken and the command stored in one statement: the
            // row lock orders concurrent senders, and an unknown account is no row.
            let rows = try await client.query(
                """
                WITH counter AS (
                    UPDATE accounts SET last_command = last_command + 1 WHERE id = \(account.rawValue)
                    RETURNING id, last_command)
                INSERT INTO commands (account, number, sender, target, message)
                SELECT id, last_command, \(Int64(request.sender)), \(Int64(request.target)), \(ByteBuffer(bytes: request.message))
                FROM counter
                RETURNING number
                """, logger: logger)
            guard let id = try await rows.values(Int64.self).first else {
                throw SyncServerError.unknownAccount(account)
            }
            return id
        }
    }

    public func waitingCommands(for targets: [UInt32], in account: AccountID, limit: Int) async throws -> [RelayedCommand] {
        try await run { [self] in
            let rows = try await client.query(
                """
                SELECT number, sender, target, message FROM commands
                WHERE account = \(account.rawValue) AND response IS NULL AND target = ANY(\(targets.map { Int64($0) })::bigint[])
                ORDER BY id LIMIT \(Int64(max(0, limit)))
                """, logger: logger)
            var commands: [RelayedCommand] = []
            for try await (id, sender, target, message) in rows.decode((Int64, Int64, Int64, Data).self) {
                guard let sender = UInt32(exactly: sender), let target = UInt32(exactly: target) else {
                    throw SyncServerError.storageFailed("a stored replica id is out of range")
                }
                commands.append(RelayedCommand(id: id, sender: sender, target: target, message: message))
            }
            return commands
        }
    }

    public func answer(_ id: Int64, by replica: UInt32, response: Data, in account: AccountID) async throws {
        try await run { [self] in
            let rows = try await client.query(
                """
                UPDATE commands SET response = coalesce(response, \(ByteBuffer(bytes: response)))
                WHERE account = \(account.rawValue) AND number = \(id) AND target = \(Int64(replica))
                RETURNING number
                """, logger: logger)
            guard try await !rows.values(Int64.self).isEmpty else {
                throw SyncServerError.unknownCommand(id)
            }
        }
    }

    public func response(to id: Int64, in account: AccountID) async throws -> Data? {
        try await run { [self] in
            let rows = try await client.query("SELECT response FROM commands WHERE account = \(account.rawValue) AND number = \(id)", logger: logger)
            guard let response = try await rows.values(Data?.self).first else {
                throw SyncServerError.unknownCommand(id)
            }
            return response
        }
    }
}
