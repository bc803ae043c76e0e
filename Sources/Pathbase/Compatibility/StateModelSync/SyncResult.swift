import Foundation

/// What applying a response changed, and where to continue.
///
/// Every `apply` function of ``UpdateConsumer`` returns one:
///
/// ```swift
/// var page: SyncCursor? = nil
/// repeat {
///     let request = try consumer.modelUpdateRequest(for: Item.self, after: lastSync, limit: 100, startingAt: page)
///     let result = try consumer.apply(modelUpdate: try producer.process(modelUpdateRequest: request))
///     page = result.nextPage
///     lastSync = result.cursor
/// } while page != nil
/// ```
public struct SyncResult: Hashable, Sendable {

    /// Where the next request should start: after every record the producer has looked at
    /// for this response. `nil` only when the producer had no records at all and the
    /// request started at the beginning.
    public var cursor: SyncCursor?

    /// Whether the producer sent everything it had; `false` for a full page of model
    /// updates with more to come.
    public var isComplete: Bool

    /// The instances the response was about, in the order received: for an instance
    /// status response the instances that are new or changed; otherwise every instance with
    /// a record in the response.
    public var instances: [InstanceKey]

    /// The number of records stored (including records that were already present, which
    /// change nothing).
    public var appliedRecords: Int

    /// The number of records left out because this side's model has no such property
    /// (for example one added in a newer version of the app).
    public var skippedRecords: Int

    /// Where the next page of model updates starts, or `nil` when everything arrived.
    public var nextPage: SyncCursor? { isComplete ? nil : cursor }

    /// The wall-clock time of ``cursor``, for code that keeps its sync position as a `Date`.
    public var lastUpdate: Date? { cursor?.date }

    /// Creates a result.
    public init(cursor: SyncCursor?, isComplete: Bool = true, instances: [InstanceKey] = [], appliedRecords: Int = 0, skippedRecords: Int = 0) {
        self.cursor = cursor
        self.isComplete = isComplete
        self.instances = instances
        self.appliedRecords = appliedRecords
        self.skippedRecords = skippedRecords
    }
}
