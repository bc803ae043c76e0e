/// An answer to an update request, as a value: records of one model (and one instance, for
/// an instance update), and where the next request should start.
///
/// ``UnencodedRequestProcessor`` returns one and ``UnencodedUpdateConsumer`` applies it, for
/// callers that move it themselves (in one process, or with an encoding of their own):
///
/// ```swift
/// let request = try consumer.modelUpdateRequest(for: Item.self, after: cursor, limit: 100)
/// let response = try processor.process(modelUpdateRequest: request)
/// let result = try consumer.apply(modelUpdate: response)
/// ```
///
/// ``RequestProcessor`` and ``UpdateConsumer`` send the same response as `Data`.
public struct SyncResponse {

    /// The model the records belong to.
    public var model: ModelKey

    /// The instance the records belong to, for an answer to an ``InstanceUpdateRequest``.
    public var instance: InstanceKey?

    /// The records, oldest first, each value of the type its model declares.
    ///
    /// A received record of a property the receiving model does not have (for example one
    /// added in a newer version of the app) is not among them; applying the response counts
    /// it in ``SyncResult/skippedRecords``.
    public var records: [Record] {
        get { entries.compactMap(\.record) }
        set { entries = newValue.map { WireRecord(path: $0.path, timestamp: $0.timestamp, value: $0.value) } }
    }

    /// Where the next request should start (see ``SyncResult/cursor``).
    public var cursor: SyncCursor?

    /// Whether the producer sent everything it had; `false` for a full page of model
    /// updates with more to come.
    public var isComplete: Bool

    /// The records as sent or received, including those without a value type on this side.
    var entries: [WireRecord]

    /// Creates a response.
    public init(model: ModelKey, instance: InstanceKey? = nil, records: [Record], cursor: SyncCursor?, isComplete: Bool = true) {
        self.init(model: model, instance: instance, entries: [], cursor: cursor, isComplete: isComplete)
        self.records = records
    }

    init(model: ModelKey, instance: InstanceKey?, entries: [WireRecord], cursor: SyncCursor?, isComplete: Bool) {
        self.model = model
        self.instance = instance
        self.entries = entries
        self.cursor = cursor
        self.isComplete = isComplete
    }

    /// A response as received.
    init(_ received: RecordsResponse) {
        self.init(model: received.model, instance: received.instance, entries: received.records, cursor: received.cursor, isComplete: received.isComplete)
    }

    /// The body to send.
    var wireBody: RecordsResponse {
        RecordsResponse(model: model, instance: instance, records: entries, cursor: cursor, isComplete: isComplete)
    }
}
