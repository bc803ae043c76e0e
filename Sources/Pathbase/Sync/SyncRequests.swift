/// The bodies of the three update requests an ``UpdateConsumer`` sends.
///
/// Each names a model (and an instance) and the cursor after which records are wanted;
/// `nil` asks for everything.

/// Which instances of a model are new or changed after a cursor.
struct InstanceStatusRequest: Codable, Sendable {
    var model: ModelKey
    var after: SyncCursor?
}

/// The records of one instance after a cursor.
struct InstanceUpdateRequest: Codable, Sendable {
    var model: ModelKey
    var instance: InstanceKey
    var after: SyncCursor?
}

/// One page of at most `limit` records of a model after a cursor.
struct ModelUpdateRequest: Codable, Sendable {
    var model: ModelKey
    var after: SyncCursor?
    var limit: Int
}
