/// The body of every update response: records of one model (and one instance, for an
/// instance update), and where the next request should start.
struct RecordsResponse: Codable {
    var model: ModelKey
    var instance: InstanceKey?
    var records: [WireRecord]
    var cursor: SyncCursor?
    var isComplete: Bool
}
