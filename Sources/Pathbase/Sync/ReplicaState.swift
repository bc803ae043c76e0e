/// Where a ``Replica`` keeps its synchronization state: records under a reserved model id in
/// its own database.
///
/// Keeping the state as records (rather than beside the database) makes it as durable as
/// the data, on every kind of history database, and lets the state change in the same
/// batch as the data it describes: a pulled page and its cursor are one transaction on
/// SQLite. The outbox itself needs no entries: a replica's own records are those stamped
/// with one of its clock ids, and they are pending until their timestamp is at or before
/// the acknowledged watermark. So a write and its outbox entry are the same record and can
/// never be separated by a crash. Only exceptions (rejected or retried records) are listed.
///
/// These paths are never pushed, never applied from a pull, and refused by the server.
enum ReplicaState {

    /// The reserved model id: the smallest `Int`, which no `@Model(id:)` uses in practice.
    static let model: ModelKey = .min

    /// The replica's id (`UInt32`), written once.
    static let id = Path(model: model, instance: 0, property: 1)

    /// Every clock replica id the database has written with (`[UInt32]`): a database
    /// reopened with another clock still knows its earlier records as its own.
    static let writers = Path(model: model, instance: 0, property: 2)

    /// The newest timestamp up to which every own record is acknowledged or rejected
    /// (`Timestamp`).
    static let acknowledgedThrough = Path(model: model, instance: 1, property: 1)

    /// Rejected and retried records (`[OutboxException]`).
    static let exceptions = Path(model: model, instance: 1, property: 2)

    /// The server sequence number of the last pulled record (`Int64`).
    static let pullCursor = Path(model: model, instance: 2, property: 1)

    /// Assets that pulled records reference and whose content has not been downloaded yet
    /// (`[Asset]`), stored with the page that brought them.
    static let awaitedAssets = Path(model: model, instance: 3, property: 1)
}

/// An own record that is not simply pending or acknowledged: rejected by the server (with
/// its reason), or rejected and then retried by the user (no reason: pending again).
struct OutboxException: Codable, Hashable {
    var key: SyncRecord.Key
    var rejection: String?
}
