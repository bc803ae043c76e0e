import Foundation

/// Why a ``Replica`` could not be set up or could not sync.
///
/// ```swift
/// do {
///     try await replica.sync()
/// } catch let error as ReplicaError {
///     print(error.localizedDescription)
/// }
/// ```
///
/// A failed sync changes nothing that the next sync needs: records stay pending and the
/// pull cursor stays where the last stored page left it.
public enum ReplicaError: Error, Hashable, Sendable, LocalizedError {

    /// The database keeps no timestamps, so it cannot take part in synchronization.
    case historyRequired(database: String)

    /// The database could not store the replica's state or the pulled records; none of
    /// the failed batch was stored.
    case storageFailed(String)

    /// A pulled record does not decode; nothing of its page was applied.
    case undecodableRecord(key: SyncRecord.Key, reason: String)

    /// The server answered a push without naming any of the records sent.
    case pushUnanswered(records: Int)

    /// ``Replica/retry(_:)`` or ``Replica/discard(_:)`` named a record that is not rejected.
    case notRejected(SyncRecord.Key)

    /// A batch or page size below 1.
    case invalidLimit(Int)

    /// Commands are sent through the server, but the transport cannot relay them.
    case commandRelayUnsupported(transport: String)

    /// A command for an instance this replica has no record of, so its owner is unknown.
    case unknownOwner(model: ModelKey, instance: InstanceKey)

    /// The server answered that another file pushes under this replica's id (a copy or a
    /// restored backup), and the database cannot take a new one: its clock was made with
    /// an explicit id, or it forked again under the new id at once. Nothing was pushed.
    case replicaIdInUse(id: UInt32, reason: String)

    public var errorDescription: String? {
        switch self {
        case .historyRequired(let database):
            "Synchronization needs a HistoryDatabase (such as InMemoryHistoryDatabase or SQLiteDatabase); \(database) keeps no timestamps"
        case .storageFailed(let reason):
            "The database could not store the synchronization state; nothing of the batch was stored: \(reason)"
        case .undecodableRecord(let key, let reason):
            "The server sent a record at \(key) that does not decode (\(reason)); nothing of its page was applied"
        case .pushUnanswered(let count):
            "The server answered a push of \(count) records without acknowledging or rejecting any; they stay pending"
        case .notRejected(let key):
            "The record at \(key) is not rejected; only rejected records can be retried or discarded"
        case .invalidLimit(let limit):
            "Invalid batch or page size \(limit); it must be at least 1"
        case .commandRelayUnsupported(let transport):
            "\(transport) cannot relay commands; use a CommandRelayTransport such as HTTPSyncTransport"
        case .unknownOwner(let model, let instance):
            "No replica is known to own instance \(instance) of model \(model): sync first, or name the target replica"
        case .replicaIdInUse(let id, let reason):
            "Another file pushes under replica id \(id) and this database cannot take a new one (a clock made with an explicit id keeps it); nothing was pushed: \(reason)"
        }
    }
}
