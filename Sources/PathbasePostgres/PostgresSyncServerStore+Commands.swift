import Foundation
import Pathbase
import PathbaseServer
import PostgresNIO

/// The command relay's queue in PostgreSQL: the `commands` table (schema version 2).
///
/// ```swift
/// let id = try await store.enqueue(CommandRelayRequest(sender: 1, target: 2, message: data), in: account)
/// ```
///
/// Each call is one statement, so it needs no transaction: command numbers come from a
/// sequence shared by every server process, a replica's inbox reads the partial index of
/// unanswered commands, and the first answer is kept (a repeated one changes nothing, as a
/// target that lost the server's reply sends it again).
extension PostgresSyncServerStore {

    public func enqueue(_ request: CommandRelayRequest, in account: AccountID) async throws -> Int64 {
        try await run { [self] in
            // Selecting from accounts turns an unknown account into no row, not a key error.
            let rows = try await client.query("""
                INSERT INTO commands (account, sender, target, message)
                SELECT id, \(Int64(request.sender)), \(Int64(request.target)), \(ByteBuffer(bytes: request.message))
                FROM accounts WHERE id = \(account.rawValue)
                RETURNING id
                """, logger: logger)
            guard let id = try await rows.values(Int64.self).first else {
                throw SyncServerError.unknownAccount(account)
            }
            return id
        }
    }

    public func waitingCommands(for targets: [UInt32], in account: AccountID, limit: Int) async throws -> [RelayedCommand] {
        try await run { [self] in
            let rows = try await client.query("""
                SELECT id, sender, target, message FROM commands
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
            let rows = try await client.query("""
                UPDATE commands SET response = coalesce(response, \(ByteBuffer(bytes: response)))
                WHERE id = \(id) AND account = \(account.rawValue) AND target = \(Int64(replica))
                RETURNING id
                """, logger: logger)
            guard try await !rows.values(Int64.self).isEmpty else {
                throw SyncServerError.unknownCommand(id)
            }
        }
    }

    public func response(to id: Int64, in account: AccountID) async throws -> Data? {
        try await run { [self] in
            let rows = try await client.query("SELECT response FROM commands WHERE id = \(id) AND account = \(account.rawValue)", logger: logger)
            guard let response = try await rows.values(Data?.self).first else {
                throw SyncServerError.unknownCommand(id)
            }
            return response
        }
    }
}
