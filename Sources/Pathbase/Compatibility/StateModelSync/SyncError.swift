import Foundation

/// Why a synchronization message or a command was refused.
///
/// Every function of ``UpdateConsumer``, ``RequestProcessor`` and ``StateClient`` that reads
/// data throws one of these, and changes nothing when it does. ``RequestProcessor/process(request:)``
/// sends it back as an error response instead, and the consumer that applies the response
/// throws it:
///
/// ```swift
/// do {
///     try consumer.apply(data: response)
/// } catch .unknownModel(let model) {
///     print("The other side does not know model \(model)")
/// } catch {
///     print(error) // every case has a readable description
/// }
/// ```
public enum SyncError: Error, Codable, Sendable, Hashable, CustomStringConvertible, LocalizedError {

    /// The data is not a message of this protocol: not decodable, truncated, a field of the
    /// wrong type, or contents that contradict each other. The text says what was wrong.
    case malformedMessage(String)

    /// The message was written by a newer (or unknown) version of the message format.
    case unsupportedVersion(Int)

    /// The message kind is not one this side knows.
    case unknownMessageKind(String)

    /// A valid message, but not one this function handles: for example a response passed to
    /// ``RequestProcessor/process(request:)``, or a model update passed to
    /// ``UpdateConsumer/apply(instanceUpdates:)``.
    case unexpectedMessage(kind: String, expected: String)

    /// No model type is known for this model id (the model map returned `nil`).
    case unknownModel(ModelKey)

    /// The instance does not exist (was never created, or is deleted) where it was needed.
    case unknownInstance(model: ModelKey, instance: InstanceKey)

    /// The model has no command with this id.
    case unknownCommand(model: ModelKey, command: CommandKey)

    /// The command's arguments do not decode as the types its function takes.
    case undecodableArguments(model: ModelKey, command: CommandKey, reason: String)

    /// The command's function ran and threw this error (as text); sent back by
    /// ``RequestProcessor/process(command:)``.
    case commandFailed(model: ModelKey, command: CommandKey, reason: String)

    /// A request asked for a page of `limit` records; the limit must be at least 1.
    case invalidLimit(Int)

    /// A record's timestamp lies further in the future than the receiving side accepts
    /// (see ``UpdateConsumer/maximumClockSkew``): a broken clock or hostile data, which would
    /// otherwise drag every later local timestamp along.
    case timestampTooFarAhead(Timestamp)

    /// Exchanging records needs timestamps: the database is not a ``HistoryDatabase``, or
    /// wraps one that keeps no history (``ObservableDatabase/keepsHistory`` is `false`).
    case historyRequired(database: String)

    /// The encoder could not write a message.
    case encodingFailed(String)

    /// The database could not store the received records; none of them were stored.
    case storageFailed(String)

    /// What went wrong, in a sentence (also `localizedDescription`).
    public var errorDescription: String? { description }

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .malformedMessage(let reason):
            return "Malformed message: \(reason)"
        case .unsupportedVersion(let version):
            return "Unsupported message version \(version); this side reads version \(SyncMessageFormat.version)"
        case .unknownMessageKind(let kind):
            return "Unknown message kind '\(kind)'"
        case .unexpectedMessage(let kind, let expected):
            return "Unexpected message '\(kind)' where \(expected) was expected"
        case .unknownModel(let model):
            return "Unknown model id \(model): the model map has no type for it"
        case .unknownInstance(let model, let instance):
            return "Instance \(instance) of model \(model) does not exist"
        case .unknownCommand(let model, let command):
            return "Model \(model) has no command with id \(command)"
        case .undecodableArguments(let model, let command, let reason):
            return "The arguments of command \(command) of model \(model) do not decode: \(reason)"
        case .commandFailed(let model, let command, let reason):
            return "Command \(command) of model \(model) failed: \(reason)"
        case .invalidLimit(let limit):
            return "Invalid page limit \(limit); a limit must be at least 1"
        case .timestampTooFarAhead(let timestamp):
            return "Timestamp \(timestamp) lies too far in the future"
        case .historyRequired(let database):
            return "Synchronization needs a HistoryDatabase (such as InMemoryHistoryDatabase or SQLiteDatabase); \(database) keeps no timestamps"
        case .encodingFailed(let reason):
            return "Could not encode a message: \(reason)"
        case .storageFailed(let reason):
            return "The database could not store the received records, none were stored: \(reason)"
        }
    }
}

extension SyncError {

    /// A readable reason for an error thrown while decoding.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func location(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(location(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "missing \(type) at \(location(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(location(context.codingPath))"
        case .dataCorrupted(let context):
            return "corrupted data at \(location(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}
