import Pathbase

/// A store that several server processes share, which tells each of them of the appends
/// any of them makes, so that every process's live connections hear of every record.
///
/// ```swift
/// try await store.listenForAppends(listening: { print("listening") }) { account, cursor in
///     server.changes.publish(cursor: cursor, for: account)
/// }
/// ```
///
/// A store only one process uses (memory, an SQLite file) does not need this: the server
/// publishes its own pushes. `PostgresSyncServerStore` implements it with LISTEN/NOTIFY.
public protocol AppendNotifyingStore: SyncServerStore {

    /// Listens on a held connection: calls `listening` once notices flow, then `appended`
    /// with each account and the sequence number of its latest record after an append by
    /// any process; returns or throws when the connection ends.
    func listenForAppends(listening: @escaping @Sendable () async -> Void, appended: @escaping @Sendable (AccountID, Int64) -> Void) async throws
}
