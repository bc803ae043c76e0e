import PathbaseServer
import PostgresNIO

extension PostgresSyncServerStore {

    /// Reads the account's `last_sequence` (one row by primary key): the number of records
    /// it was given, since its sequence numbers run 1, 2, 3 ….
    public func latestSequence(of account: AccountID) async throws -> Int64 {
        try await run { [self] in
            let rows = try await client.query("SELECT last_sequence FROM accounts WHERE id = \(account.rawValue)", logger: logger)
            for try await last in rows.decode(Int64.self) { return last }
            return 0
        }
    }
}
