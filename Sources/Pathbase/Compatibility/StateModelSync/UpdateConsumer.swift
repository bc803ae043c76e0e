import Foundation

/// The side of a synchronization that asks for updates and stores them: it writes requests
/// and applies the responses of a ``RequestProcessor``.
///
/// Both sides map model ids to model types, to encode and decode property values with the
/// types the models declare:
///
/// ```swift
/// func mapIdToModel(modelId: Int) -> (any ModelProtocol.Type)? {
///     switch modelId {
///     case Item.modelId: return Item.self
///     default: return nil
///     }
/// }
///
/// let consumer = UpdateConsumer(database: localDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
/// let producer = RequestProcessor(database: remoteDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
///
/// let request = try consumer.instanceStatusRequest(for: Item.self, after: cursor)
/// let response = try producer.process(instanceStatusRequest: request) // on the other side
/// let result = try consumer.apply(instanceUpdates: response)
/// cursor = result.cursor
/// ```
///
/// Requests and responses are `Data` written with the given encoder, ready to be sent.
///
/// **Cursors.** "After" positions are ``SyncCursor``s: record timestamps of the producer (hybrid
/// logical clock readings), never the consumer's own clock. Keep ``SyncResult/cursor`` of
/// each response and send it with the next request: writes within one millisecond, and a
/// producer whose clock is behind the consumer's, never make a request skip a record.
/// Requests that take a `Date` (as in the first versions of this API) include the records
/// at that very moment again; applying a record twice changes nothing. A record that
/// reaches the producer later with an *older* timestamp (from a third replica) lies before
/// a cursor already past it; a sync server assigns sequence numbers for that case.
///
/// **Applying.** Records are applied with their timestamps, so the newest record of a path
/// wins on both sides whatever the order of arrival, and applying a response twice changes
/// nothing. A response is checked completely before anything is written: a malformed,
/// truncated or hostile response throws a ``SyncError`` and changes nothing. On a
/// ``BatchDatabase`` (such as `SQLiteDatabase`) a response is stored in one batch: all of it
/// or, if the database fails, none of it.
///
/// **Databases.** Applying updates needs a ``HistoryDatabase`` (``InMemoryHistoryDatabase``,
/// `SQLiteDatabase`, your own): without timestamps a received value could overwrite a newer
/// local one. With a plain ``Database`` (also one wrapped in an ``ObservableDatabase``) the
/// functions throw ``SyncError/historyRequired(database:)``.
///
/// It builds requests and applies responses with an ``UnencodedUpdateConsumer``, and
/// encodes and decodes them; use that one directly to pass requests and responses as
/// values. Use a consumer from one thread at a time.
public final class UpdateConsumer {

    /// Builds the requests and applies the decoded responses.
    public let unencoded: UnencodedUpdateConsumer

    /// The database updates are applied to.
    public var database: any Database { unencoded.database }

    /// Returns the model type for a model id, or `nil` for models this side does not sync.
    public var modelMap: (ModelKey) -> (any ModelProtocol.Type)? { unencoded.modelMap }

    /// How far into the future (by this machine's clock) a received timestamp may lie; a
    /// response with a later record is refused with ``SyncError/timestampTooFarAhead(_:)``.
    /// One day by default. It keeps a broken clock or hostile data from dragging every
    /// later local timestamp along.
    public var maximumClockSkew: TimeInterval {
        get { unencoded.maximumClockSkew }
        set { unencoded.maximumClockSkew = newValue }
    }

    let encoder: any DataEncoder
    let decoder: any DataDecoder

    /// Creates a consumer that applies updates to a database.
    ///
    /// - Parameters:
    ///   - database: Where updates are stored; a ``HistoryDatabase`` to apply updates.
    ///   - encoder: Writes requests.
    ///   - decoder: Reads responses.
    ///   - modelMap: The model type for each model id that is synchronized.
    public init(database: any Database, encoder: any DataEncoder, decoder: any DataDecoder, modelMap: @escaping (ModelKey) -> (any ModelProtocol.Type)?) {
        self.unencoded = UnencodedUpdateConsumer(database: database, modelMap: modelMap)
        self.encoder = encoder
        self.decoder = decoder
    }

    // MARK: Instance statuses

    /// A request for the instances of a model that are new or changed after a cursor
    /// (everything when `nil`), with their statuses. Answered by
    /// ``RequestProcessor/process(instanceStatusRequest:)``.
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after cursor: SyncCursor? = nil) throws(SyncError) -> Data {
        try encoder.encodeMessage(.instanceStatusRequest, unencoded.instanceStatusRequest(for: model, after: cursor))
    }

    /// A request for the instances of a model that are new or changed at or after a date.
    public func instanceStatusRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date) throws(SyncError) -> Data {
        try instanceStatusRequest(for: model, after: SyncCursor(date: date))
    }

    /// Stores the instance statuses of a response to `instanceStatusRequest(for:after:)`.
    ///
    /// ``SyncResult/instances`` lists the new or changed instances; ask for their values
    /// with `instanceUpdateRequest(for:of:after:)` or `modelUpdateRequest(for:after:limit:startingAt:)`.
    @discardableResult
    public func apply(instanceUpdates data: Data) throws(SyncError) -> SyncResult {
        try apply(data, expecting: .instanceStatuses, description: "an instance status response")
    }

    // MARK: Instance updates

    /// A request for the records of one instance after a cursor (everything when `nil`).
    /// Answered by ``RequestProcessor/process(instanceUpdateRequest:)``.
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after cursor: SyncCursor? = nil) throws(SyncError) -> Data {
        try encoder.encodeMessage(.instanceUpdateRequest, unencoded.instanceUpdateRequest(for: instance, of: model, after: cursor))
    }

    /// A request for the records of one instance written at or after a date.
    public func instanceUpdateRequest<Model: ModelProtocol>(for instance: InstanceKey, of model: Model.Type, after date: Date) throws(SyncError) -> Data {
        try instanceUpdateRequest(for: instance, of: model, after: SyncCursor(date: date))
    }

    /// Stores the records of a response to `instanceUpdateRequest(for:of:after:)`.
    @discardableResult
    public func apply(instanceUpdate data: Data) throws(SyncError) -> SyncResult {
        try apply(data, expecting: .instanceUpdate, description: "an instance update response")
    }

    // MARK: Model updates

    /// A request for one page of at most `limit` records of a model.
    ///
    /// Start with `startingAt: nil`; while the applied result has a
    /// ``SyncResult/nextPage``, request again starting there. When it is `nil`, every
    /// update after `cursor` has arrived and ``SyncResult/cursor`` is where the next
    /// synchronization starts:
    ///
    /// ```swift
    /// var page: SyncCursor? = nil
    /// repeat {
    ///     let request = try consumer.modelUpdateRequest(for: Item.self, after: cursor, limit: 100, startingAt: page)
    ///     let result = try consumer.apply(modelUpdate: try producer.process(modelUpdateRequest: request))
    ///     page = result.nextPage
    ///     cursor = result.cursor
    /// } while page != nil
    /// ```
    ///
    /// The producer may send fewer than `limit` records per page (see
    /// ``RequestProcessor/maximumPageSize``).
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after cursor: SyncCursor? = nil, limit: Int, startingAt page: SyncCursor? = nil) throws(SyncError) -> Data {
        try encoder.encodeMessage(.modelUpdateRequest, unencoded.modelUpdateRequest(for: model, after: cursor, limit: limit, startingAt: page))
    }

    /// A request for one page of at most `limit` records of a model written at or after a
    /// date; continue with `startingAt:` as for cursors.
    public func modelUpdateRequest<Model: ModelProtocol>(for model: Model.Type, after date: Date, limit: Int, startingAt page: SyncCursor? = nil) throws(SyncError) -> Data {
        try modelUpdateRequest(for: model, after: SyncCursor(date: date), limit: limit, startingAt: page)
    }

    /// Stores the records of a response to `modelUpdateRequest(for:after:limit:startingAt:)`.
    @discardableResult
    public func apply(modelUpdate data: Data) throws(SyncError) -> SyncResult {
        try apply(data, expecting: .modelUpdate, description: "a model update response")
    }

    // MARK: Any response

    /// Applies any response of a ``RequestProcessor``: instance statuses, an instance
    /// update, a model update, or the confirmation of a command.
    ///
    /// An error response throws the error the producer reported. Requests are refused with
    /// ``SyncError/unexpectedMessage(kind:expected:)``.
    @discardableResult
    public func apply(data: Data) throws(SyncError) -> SyncResult {
        let message = try IncomingMessage.decode(data, with: decoder, expecting: MessageKind.responses, description: "a response", modelType: modelMap)
        switch message {
        case .instanceStatuses(let response): return try unencoded.apply(SyncResponse(response), as: .instanceStatuses)
        case .instanceUpdate(let response): return try unencoded.apply(SyncResponse(response), as: .instanceUpdate)
        case .modelUpdate(let response): return try unencoded.apply(SyncResponse(response), as: .modelUpdate)
        case .commandDone(let done): return SyncResult(cursor: nil, instances: [done.instance])
        case .error(let error): throw error
        case .instanceStatusRequest, .instanceUpdateRequest, .modelUpdateRequest, .command:
            throw .unexpectedMessage(kind: "request", expected: "a response")
        }
    }

    // MARK: Applying

    private func apply(_ data: Data, expecting kind: MessageKind, description: String) throws(SyncError) -> SyncResult {
        let message = try IncomingMessage.decode(data, with: decoder, expecting: [kind, .error], description: description, modelType: modelMap)
        switch message {
        case .instanceStatuses(let response), .instanceUpdate(let response), .modelUpdate(let response):
            return try unencoded.apply(SyncResponse(response), as: kind)
        case .error(let error):
            throw error
        case .instanceStatusRequest, .instanceUpdateRequest, .modelUpdateRequest, .command, .commandDone:
            throw .unexpectedMessage(kind: "another message", expected: description)
        }
    }
}
