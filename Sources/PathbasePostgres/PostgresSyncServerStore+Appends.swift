import Logging
import Pathbase
import PathbaseServer
import PostgresNIO

/// Live notices across server processes: each append sends a NOTIFY on one channel in its
/// transaction (so it is delivered at commit, after the records are visible), and every
/// server process holds one pooled connection in LISTEN on it.
extension PostgresSyncServerStore: AppendNotifyingStore {

    /// The channel of the notices; its payload is an ``AppendNotice``, never records
    /// (PostgreSQL limits a payload to 8000 bytes).
    static let appendsChannel = "pathbase_appends"

    public func listenForAppends(listening: @escaping @Sendable () async -> Void, appended: @escaping @Sendable (AccountID, Int64) -> Void) async throws {
        let logger = logger
        try await client.withConnection { connection in
            try await connection.listen(on: Self.appendsChannel) { notifications in
                await listening()
                for try await notification in notifications {
                    guard let notice = AppendNotice(payload: notification.payload) else {
                        logger.warning("ignored a notice that is not an append", metadata: ["payload": "\(notification.payload.prefix(100))"])
                        continue
                    }
                    appended(notice.account, notice.sequence)
                }
            }
        }
    }
}

/// The payload of an append's NOTIFY: `"account:sequence"`.
struct AppendNotice: Hashable {
    var account: AccountID
    var sequence: Int64

    init(account: AccountID, sequence: Int64) {
        self.account = account
        self.sequence = sequence
    }

    init?(payload: String) {
        let parts = payload.split(separator: ":")
        guard parts.count == 2, let account = Int64(parts[0]), let sequence = Int64(parts[1]) else { return nil }
        self.init(account: AccountID(rawValue: account), sequence: sequence)
    }

    var payload: String { "\(account.rawValue):\(sequence)" }
}
