import Foundation

/// The envelope every synchronization message and command is sent in.
///
/// A message is a keyed container with three entries:
///
/// | key | value |
/// |---|---|
/// | `version` | the format version, ``version`` (1) |
/// | `kind` | a ``MessageKind`` raw value |
/// | `body` | the request, response or command |
///
/// A receiver refuses another version with ``SyncError/unsupportedVersion(_:)`` and an
/// unknown kind with ``SyncError/unknownMessageKind(_:)``, before reading the body.
enum SyncMessageFormat {

    /// The version this library writes and reads.
    static let version = 1

    enum Key: String, CodingKey {
        case version, kind, body
    }
}

/// What a message is; routes it to its handler.
enum MessageKind: String, Codable, Sendable, CaseIterable {
    case instanceStatusRequest
    case instanceUpdateRequest
    case modelUpdateRequest
    case command
    case instanceStatuses
    case instanceUpdate
    case modelUpdate
    case commandDone
    case error

    /// The kinds ``RequestProcessor/process(request:)`` answers.
    static let requests: Set<MessageKind> = [.instanceStatusRequest, .instanceUpdateRequest, .modelUpdateRequest, .command]

    /// The kinds ``UpdateConsumer/apply(data:)`` takes.
    static let responses: Set<MessageKind> = [.instanceStatuses, .instanceUpdate, .modelUpdate, .commandDone, .error]
}

/// A message on its way out: the envelope around a body.
struct OutgoingMessage<Body: Encodable>: Encodable {
    let kind: MessageKind
    let body: Body

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SyncMessageFormat.Key.self)
        try container.encode(SyncMessageFormat.version, forKey: .version)
        try container.encode(kind, forKey: .kind)
        try container.encode(body, forKey: .body)
    }
}

extension DataEncoder {

    /// Encodes a message, reporting failures as ``SyncError/encodingFailed(_:)``.
    func encodeMessage<Body: Encodable>(_ kind: MessageKind, _ body: Body) throws(SyncError) -> Data {
        do {
            return try encode(OutgoingMessage(kind: kind, body: body))
        } catch let error as SyncError {
            throw error
        } catch {
            throw .encodingFailed(String(describing: error))
        }
    }
}
