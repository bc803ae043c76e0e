/// The side of a synchronization that answers requests, with requests and responses as
/// values: for callers in the same process, or with a transport encoding of their own.
///
/// ```swift
/// let processor = UnencodedRequestProcessor(database: remoteDB, modelMap: mapIdToModel)
/// let consumer = UnencodedUpdateConsumer(database: localDB, modelMap: mapIdToModel)
///
/// let request = try consumer.instanceStatusRequest(for: Item.self)
/// let response = try processor.process(instanceStatusRequest: request)
/// try consumer.apply(instanceUpdates: response)
/// ```
///
/// ``RequestProcessor`` answers the same requests as `Data`, and runs commands. Answering
/// needs a ``HistoryDatabase``: responses carry record timestamps. Values whose type is not
/// the one the model declares (written before the property's type changed; they read as the
/// default) are left out of responses, as are records of properties the model no longer has.
///
/// Use a processor from one thread at a time.
public final class UnencodedRequestProcessor {

    /// The database requests are answered from.
    public let database: any Database

    /// Returns the model type for a model id, or `nil` for models this side does not serve.
    public let modelMap: (ModelKey) -> (any ModelProtocol.Type)?

    /// The largest number of records sent in one page of model updates, whatever limit a
    /// request asks for; 1000 by default.
    public var maximumPageSize = 1_000

    /// Creates a processor that answers requests from a database.
    ///
    /// - Parameters:
    ///   - database: Where answers come from; a ``HistoryDatabase``.
    ///   - modelMap: The model type for each model id that is served.
    public init(database: any Database, modelMap: @escaping (ModelKey) -> (any ModelProtocol.Type)?) {
        self.database = database
        self.modelMap = modelMap
    }

    /// The current status of every instance of the model that is new or changed after the
    /// request's cursor.
    public func process(instanceStatusRequest request: InstanceStatusRequest) throws(SyncError) -> SyncResponse {
        let history = try history()
        _ = try modelType(request.model)
        // Every instance with a record after the cursor, once, in order of its first change.
        var seen: Set<InstanceKey> = []
        let scan = RecordScan(of: history, after: request.after, limit: nil) { record -> InstanceKey? in
            guard record.path.model == request.model, seen.insert(record.path.instance).inserted else { return nil }
            return record.path.instance
        }
        let entries = scan.elements.compactMap { instance -> WireRecord? in
            let path = Path.status(model: request.model, instance: instance)
            return history.latestRecord(at: path).flatMap { WireRecord($0, type: InstanceStatus.self) }
        }
        return SyncResponse(model: request.model, instance: nil, entries: entries, cursor: scan.cursor, isComplete: true)
    }

    /// Every record of the instance after the request's cursor.
    public func process(instanceUpdateRequest request: InstanceUpdateRequest) throws(SyncError) -> SyncResponse {
        let history = try history()
        let type = try modelType(request.model)
        guard history.latestRecord(at: .status(model: request.model, instance: request.instance)) != nil else {
            throw .unknownInstance(model: request.model, instance: request.instance)
        }
        let scan = RecordScan(of: history, after: request.after, limit: nil) { record -> WireRecord? in
            guard record.path.model == request.model, record.path.instance == request.instance else { return nil }
            return WireRecord(record, type: UnencodedRequestProcessor.valueType(at: record.path, in: type))
        }
        return SyncResponse(model: request.model, instance: request.instance, entries: scan.elements, cursor: scan.cursor, isComplete: true)
    }

    /// One page of records of the model after the request's cursor: at most the request's
    /// limit, and at most ``maximumPageSize``.
    public func process(modelUpdateRequest request: ModelUpdateRequest) throws(SyncError) -> SyncResponse {
        let history = try history()
        let type = try modelType(request.model)
        guard request.limit > 0 else { throw .invalidLimit(request.limit) }
        let limit = Swift.min(request.limit, Swift.max(1, maximumPageSize))
        let scan = RecordScan(of: history, after: request.after, limit: limit) { record -> WireRecord? in
            guard record.path.model == request.model else { return nil }
            return WireRecord(record, type: UnencodedRequestProcessor.valueType(at: record.path, in: type))
        }
        return SyncResponse(model: request.model, instance: nil, entries: scan.elements, cursor: scan.cursor, isComplete: scan.isComplete)
    }

    private func history() throws(SyncError) -> any HistoryDatabase {
        guard let history = database.historyDatabase else {
            throw .historyRequired(database: String(describing: type(of: database)))
        }
        return history
    }

    private func modelType(_ model: ModelKey) throws(SyncError) -> any ModelProtocol.Type {
        guard let type = modelMap(model) else { throw .unknownModel(model) }
        return type
    }

    private static func valueType(at path: Path, in type: any ModelProtocol.Type) -> (any DatabaseValue.Type)? {
        path.isStatus ? InstanceStatus.self : type._$propertyType(path.property)
    }
}
