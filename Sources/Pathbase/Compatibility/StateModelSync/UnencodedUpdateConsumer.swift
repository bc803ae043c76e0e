import Foundation

/// The side of a synchronization that asks for updates and stores them, with requests and
/// responses as values: for callers in the same process, or with a transport encoding of
/// their own.
///
/// ```swift
/// let consumer = UnencodedUpdateConsumer(database: localDB, modelMap: mapIdToModel)
/// let processor = UnencodedRequestProcessor(database: remoteDB, modelMap: mapIdToModel)
///
/// let request = try consumer.instanceUpdateRequest(for: 7, of: Item.self)
/// let result = try consumer.apply(instanceUpdate: try processor.process(instanceUpdateRequest: request))
/// ```
///
/// ``UpdateConsumer`` does the same with `Data`; its documentation explains cursors and
/// how records are applied: with their timestamps, newest wins, a whole response checked
/// before anything is written, in one batch where the database has batches. Applying needs
/// a ``HistoryDatabase``; with a plain ``Database`` the functions throw
/// ``SyncError/historyRequired(database:)``.
///
/// Use a consumer from one thread at a time.
public final class UnencodedUpdateConsumer {

    /// The database updates are applied to.
    public let database: any Database

    /// Returns the model type for a model id, or `nil` for models this side does not sync.
    public let modelMap: (ModelKey) -> (any ModelProtocol.Type)?

    /// How far into the future (by this machine's clock) a received timestamp may lie; a
    /// response with a later record is refused with ``SyncError/timestampTooFarAhead(_:)``.
    /// One day by default.
    public var maximumClockSkew: TimeInterval = 86_400

    /// The next page of each model that StateModel's paging (by instance) continues from.
    var stateModelPages: [ModelKey: SyncCursor] = [:]

    /// Creates a consumer that applies updates to a database.
    ///
    /// - Parameters:
    ///   - database: Where updates are stored; a ``HistoryDatabase``.
    ///   - modelMap: The model type for each model id that is synchronized.
    public init(database: any Database, modelMap: @escaping (ModelKey) -> (any ModelProtocol.Type)?) {
        self.database = database
        self.modelMap = modelMap
    }

    // MARK: Requests

    /// A request for the instances of a model that are new or changed after a cursor
    /// (everything when `nil`).
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after cursor: SyncCursor? = nil) throws(SyncError) -> InstanceStatusRequest {
        try requireKnown(model)
        return InstanceStatusRequest(model: Model.modelId, after: cursor)
    }

    /// A request for the instances of a model that are new or changed at or after a date.
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date) throws(SyncError) -> InstanceStatusRequest {
        try instanceStatusRequest(for: model, after: SyncCursor(date: date))
    }

    /// A request for the records of one instance after a cursor (everything when `nil`).
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after cursor: SyncCursor? = nil) throws(SyncError) -> InstanceUpdateRequest {
        try requireKnown(model)
        return InstanceUpdateRequest(model: Model.modelId, instance: instance, after: cursor)
    }

    /// A request for the records of one instance written at or after a date.
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after date: Date) throws(SyncError) -> InstanceUpdateRequest {
        try instanceUpdateRequest(for: instance, of: model, after: SyncCursor(date: date))
    }

    /// A request for one page of at most `limit` records of a model; continue with
    /// `startingAt:` set to ``SyncResult/nextPage`` until it is `nil`.
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after cursor: SyncCursor? = nil, limit: Int, startingAt page: SyncCursor? = nil) throws(SyncError) -> ModelUpdateRequest
    {
        try requireKnown(model)
        guard limit > 0 else { throw .invalidLimit(limit) }
        return ModelUpdateRequest(model: Model.modelId, after: page ?? cursor, limit: limit)
    }

    /// A request for one page of at most `limit` records of a model written at or after a
    /// date.
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date, limit: Int, startingAt page: SyncCursor? = nil) throws(SyncError) -> ModelUpdateRequest {
        try modelUpdateRequest(for: model, after: SyncCursor(date: date), limit: limit, startingAt: page)
    }

    // MARK: Responses

    /// Stores the instance statuses of an answer to `instanceStatusRequest(for:after:)`.
    @discardableResult
    public func apply(instanceUpdates response: SyncResponse) throws(SyncError) -> SyncResult {
        try apply(response, as: .instanceStatuses)
    }

    /// Stores the records of an answer to `instanceUpdateRequest(for:of:after:)`.
    @discardableResult
    public func apply(instanceUpdate response: SyncResponse) throws(SyncError) -> SyncResult {
        try apply(response, as: .instanceUpdate)
    }

    /// Stores the records of an answer to `modelUpdateRequest(for:after:limit:startingAt:)`.
    @discardableResult
    public func apply(modelUpdate response: SyncResponse) throws(SyncError) -> SyncResult {
        try apply(response, as: .modelUpdate)
    }

    /// Checks a whole response, then stores its records.
    func apply(_ response: SyncResponse, as kind: MessageKind) throws(SyncError) -> SyncResult {
        guard let history = database.historyDatabase else {
            throw .historyRequired(database: String(describing: type(of: database)))
        }
        guard let modelType = modelMap(response.model) else { throw .unknownModel(response.model) }
        if kind == .instanceUpdate, response.instance == nil {
            throw .malformedMessage("an instance update names no instance")
        }
        let latestAccepted = Timestamp(latestAt: Date().addingTimeInterval(maximumClockSkew))
        for entry in response.entries {
            guard entry.path.model == response.model else {
                throw .malformedMessage("a record at \(entry.path) in a response about model \(response.model)")
            }
            if let instance = response.instance, entry.path.instance != instance {
                throw .malformedMessage("a record at \(entry.path) in a response about instance \(instance)")
            }
            if kind == .instanceStatuses, !entry.path.isStatus {
                throw .malformedMessage("a record at \(entry.path) in an instance status response")
            }
            guard entry.timestamp <= latestAccepted else { throw .timestampTooFarAhead(entry.timestamp) }
        }

        var result = SyncResult(cursor: response.cursor, isComplete: response.isComplete)
        var seen: Set<InstanceKey> = []
        var records: [Record] = []
        for entry in response.entries {
            if seen.insert(entry.path.instance).inserted { result.instances.append(entry.path.instance) }
            // A record of a property this side's model does not have is left out, whether it
            // arrived without a value (decoded data) or with one (a value passed directly).
            if let record = entry.record, entry.path.isStatus || modelType._$propertyType(entry.path.property) != nil {
                records.append(record)
            } else {
                result.skippedRecords += 1
            }
        }
        result.appliedRecords = records.count
        try store(records, in: history)
        return result
    }

    /// Stores records; in one batch (one transaction, all or nothing) where the database
    /// supports it.
    private func store(_ records: [Record], in history: any HistoryDatabase) throws(SyncError) {
        do {
            try history.inBatchIfSupported {
                for record in records { history.apply(record) }
            }
        } catch {
            throw .storageFailed(String(describing: error))
        }
    }

    private func requireKnown<Model: ModelProtocol>(_ model: Model.Type) throws(SyncError) {
        guard modelMap(Model.modelId) != nil else { throw .unknownModel(Model.modelId) }
    }
}
