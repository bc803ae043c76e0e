import Foundation

/// The side of a synchronization that answers requests: it reads the requests of an
/// ``UpdateConsumer`` and writes responses from its database, and runs received commands.
///
/// ```swift
/// let producer = RequestProcessor(database: remoteDB, encoder: JSONEncoder(), decoder: JSONDecoder(), modelMap: mapIdToModel)
///
/// // One entry point for every kind of request, for example behind an HTTP endpoint:
/// let response: Data = producer.process(request: requestData)
/// ```
///
/// ``process(request:)`` never throws: every failure becomes an error response, which the
/// consumer's `apply` functions throw as the ``SyncError`` it carries. The functions for
/// one kind of request (``process(instanceStatusRequest:)`` and the others) throw instead,
/// and refuse requests of another kind.
///
/// Answering update requests needs a ``HistoryDatabase``: responses carry record
/// timestamps. Commands run on any ``Database``. Values whose type is not the one the
/// model declares (written before the property's type changed; they read as the default)
/// are left out of responses, as are records of properties the model no longer has.
///
/// It answers with an ``UnencodedRequestProcessor`` and encodes its responses; use that one
/// directly to pass requests and responses as values. Use a processor from one thread at a
/// time.
public final class RequestProcessor {

    /// Answers the decoded requests.
    public let unencoded: UnencodedRequestProcessor

    /// The database requests are answered from.
    public var database: any Database { unencoded.database }

    /// Returns the model type for a model id, or `nil` for models this side does not serve.
    public var modelMap: (ModelKey) -> (any ModelProtocol.Type)? { unencoded.modelMap }

    /// The largest number of records sent in one page of model updates, whatever limit a
    /// request asks for; 1000 by default.
    public var maximumPageSize: Int {
        get { unencoded.maximumPageSize }
        set { unencoded.maximumPageSize = newValue }
    }

    private let encoder: any DataEncoder
    private let decoder: any DataDecoder

    /// Creates a processor that answers requests from a database.
    ///
    /// - Parameters:
    ///   - database: Where answers come from; a ``HistoryDatabase`` to answer update requests.
    ///   - encoder: Writes responses.
    ///   - decoder: Reads requests.
    ///   - modelMap: The model type for each model id that is served.
    public init(database: any Database, encoder: any DataEncoder, decoder: any DataDecoder, modelMap: @escaping (ModelKey) -> (any ModelProtocol.Type)?) {
        self.unencoded = UnencodedRequestProcessor(database: database, modelMap: modelMap)
        self.encoder = encoder
        self.decoder = decoder
    }

    // MARK: Any request

    /// Answers any request: instance statuses, an instance update, a model update, or a
    /// command. Never throws; a request that cannot be answered gets an error response.
    ///
    /// If even the error response cannot be encoded (only a broken encoder does that), the
    /// result is empty `Data`, which the consumer refuses as malformed.
    public func process(request data: Data) -> Data {
        do {
            let message = try decode(data, expecting: MessageKind.requests, description: "a request")
            switch message {
            case .instanceStatusRequest(let request): return try encoder.encodeMessage(.instanceStatuses, unencoded.process(instanceStatusRequest: request).wireBody)
            case .instanceUpdateRequest(let request): return try encoder.encodeMessage(.instanceUpdate, unencoded.process(instanceUpdateRequest: request).wireBody)
            case .modelUpdateRequest(let request): return try encoder.encodeMessage(.modelUpdate, unencoded.process(modelUpdateRequest: request).wireBody)
            case .command(let command): return try run(command)
            case .instanceStatuses, .instanceUpdate, .modelUpdate, .commandDone, .error:
                throw SyncError.unexpectedMessage(kind: "response", expected: "a request")
            }
        } catch let error as SyncError {
            return errorResponse(error)
        } catch {
            return errorResponse(.malformedMessage(SyncError.describe(error)))
        }
    }

    /// The encoded error response for an error.
    public func errorResponse(_ error: SyncError) -> Data {
        // No storage is involved, and there is no one left to tell: an error the encoder
        // can't encode is answered with empty data, which the peer rejects as malformed.
        (try? encoder.encodeMessage(.error, error)) ?? Data()
    }

    // MARK: Requests of one kind

    /// Answers a request of `UpdateConsumer/instanceStatusRequest(for:after:)` with the
    /// current status of every instance of the model that is new or changed after the
    /// request's cursor.
    public func process(instanceStatusRequest data: Data) throws(SyncError) -> Data {
        guard case .instanceStatusRequest(let request) = try decode(data, expecting: [.instanceStatusRequest], description: "an instance status request") else {
            throw .malformedMessage("not an instance status request")
        }
        return try encoder.encodeMessage(.instanceStatuses, unencoded.process(instanceStatusRequest: request).wireBody)
    }

    /// Answers a request of `UpdateConsumer/instanceUpdateRequest(for:of:after:)` with
    /// every record of the instance after the request's cursor.
    public func process(instanceUpdateRequest data: Data) throws(SyncError) -> Data {
        guard case .instanceUpdateRequest(let request) = try decode(data, expecting: [.instanceUpdateRequest], description: "an instance update request") else {
            throw .malformedMessage("not an instance update request")
        }
        return try encoder.encodeMessage(.instanceUpdate, unencoded.process(instanceUpdateRequest: request).wireBody)
    }

    /// Answers a request of `UpdateConsumer/modelUpdateRequest(for:after:limit:startingAt:)`
    /// with one page of records of the model after the request's cursor.
    public func process(modelUpdateRequest data: Data) throws(SyncError) -> Data {
        guard case .modelUpdateRequest(let request) = try decode(data, expecting: [.modelUpdateRequest], description: "a model update request") else {
            throw .malformedMessage("not a model update request")
        }
        return try encoder.encodeMessage(.modelUpdate, unencoded.process(modelUpdateRequest: request).wireBody)
    }

    /// Runs a command made with a generated `…Command(…)` function and
    /// ``InstanceCommand/encoded(using:)``, and returns the confirmation to send back.
    ///
    /// Throws ``SyncError/unknownModel(_:)``, ``SyncError/unknownInstance(model:instance:)``
    /// (also for a deleted instance), ``SyncError/unknownCommand(model:command:)`` or
    /// ``SyncError/undecodableArguments(model:command:reason:)`` without running anything,
    /// and ``SyncError/commandFailed(model:command:reason:)`` if the command throws.
    public func process(command data: Data) throws(SyncError) -> Data {
        guard case .command(let command) = try decode(data, expecting: [.command], description: "a command") else {
            throw .malformedMessage("not a command")
        }
        return try run(command)
    }

    // MARK: Answers

    private func decode(_ data: Data, expecting kinds: Set<MessageKind>, description: String) throws(SyncError) -> IncomingMessage {
        try IncomingMessage.decode(data, with: decoder, expecting: kinds, description: description, modelType: modelMap, database: database)
    }

    private func run(_ command: ReceivedCommand) throws(SyncError) -> Data {
        do {
            try command.run()
        } catch {
            throw .commandFailed(model: command.model, command: command.command, reason: String(describing: error))
        }
        return try encoder.encodeMessage(.commandDone, CommandDone(model: command.model, instance: command.instance, command: command.command))
    }
}
