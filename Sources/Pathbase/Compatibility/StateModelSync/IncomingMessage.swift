import Foundation

/// A decoded message of any kind, ready to be routed to its handler.
///
/// Decoding checks the version and the kind before the body, and refuses kinds the
/// receiving function does not handle, so a message is never half-read by the wrong
/// handler. Bodies that hold values or command arguments decode them with the types of the
/// receiving side's models, found through ``MessageDecodingContext``.
enum IncomingMessage: Decodable {
    case instanceStatusRequest(InstanceStatusRequest)
    case instanceUpdateRequest(InstanceUpdateRequest)
    case modelUpdateRequest(ModelUpdateRequest)
    case command(ReceivedCommand)
    case instanceStatuses(RecordsResponse)
    case instanceUpdate(RecordsResponse)
    case modelUpdate(RecordsResponse)
    case commandDone(CommandDone)
    case error(SyncError)

    init(from decoder: any Decoder) throws {
        let context = try MessageDecodingContext.required(by: decoder)
        let container = try decoder.container(keyedBy: SyncMessageFormat.Key.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == SyncMessageFormat.version else { throw SyncError.unsupportedVersion(version) }
        let name = try container.decode(String.self, forKey: .kind)
        guard let kind = MessageKind(rawValue: name) else { throw SyncError.unknownMessageKind(name) }
        guard context.expected.contains(kind) else {
            throw SyncError.unexpectedMessage(kind: name, expected: context.expectedDescription)
        }
        switch kind {
        case .instanceStatusRequest: self = .instanceStatusRequest(try container.decode(InstanceStatusRequest.self, forKey: .body))
        case .instanceUpdateRequest: self = .instanceUpdateRequest(try container.decode(InstanceUpdateRequest.self, forKey: .body))
        case .modelUpdateRequest: self = .modelUpdateRequest(try container.decode(ModelUpdateRequest.self, forKey: .body))
        case .command: self = .command(try container.decode(ReceivedCommand.self, forKey: .body))
        case .instanceStatuses: self = .instanceStatuses(try container.decode(RecordsResponse.self, forKey: .body))
        case .instanceUpdate: self = .instanceUpdate(try container.decode(RecordsResponse.self, forKey: .body))
        case .modelUpdate: self = .modelUpdate(try container.decode(RecordsResponse.self, forKey: .body))
        case .commandDone: self = .commandDone(try container.decode(CommandDone.self, forKey: .body))
        case .error: self = .error(try container.decode(SyncError.self, forKey: .body))
        }
    }

    /// Decodes a message of one of the `expected` kinds from data.
    ///
    /// Any failure — undecodable, truncated or contradictory data, another version, a kind
    /// not expected — is a ``SyncError``; nothing is written while decoding.
    static func decode(
        _ data: Data,
        with decoder: any DataDecoder,
        expecting expected: Set<MessageKind>,
        description: String,
        modelType: @escaping (ModelKey) -> (any ModelProtocol.Type)?,
        database: (any Database)? = nil
    ) throws(SyncError) -> IncomingMessage {
        let context = MessageDecodingContext(expected: expected, expectedDescription: description, modelType: modelType, database: database)
        do {
            return try MessageDecodingContext.$current.withValue(context) {
                try decoder.decode(IncomingMessage.self, from: data)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .malformedMessage(SyncError.describe(error))
        }
    }
}
