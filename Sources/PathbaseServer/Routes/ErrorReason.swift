import Foundation
import Hummingbird
import Pathbase

/// A refused request as the HTTP routes answer it: a status and a JSON body
/// `{"reason": "…"}` to show to the user.
///
/// ```swift
/// return ErrorReason(status: .badRequest, reason: "The body is not JSON").response
/// ```
///
/// ``SyncServerError`` maps to 401 (wrong or missing token), 404 (no such command or asset),
/// 409 (account exists, an asset chunk at the wrong byte), 413 (too many records, a chunk too
/// large), 416 (a range past an asset's end), 422 (uploaded content that does not match its
/// hash), 400 (other bad input), 500 (store failure), 501 (a store without commands or
/// assets) and 503 (store unavailable).
public struct ErrorReason: Error, Codable, Hashable, Sendable, LocalizedError {

    /// The HTTP status code.
    public var status: Int

    /// Why, in words for the user.
    public var reason: String

    /// For a 429 or 503: how many seconds to wait before retrying (`Retry-After`), not
    /// part of the body.
    public var retryAfter: Int?

    /// A refusal with a status (and a `Retry-After` in seconds).
    public init(status: HTTPResponse.Status, reason: String, retryAfter: Int? = nil) {
        self.status = status.code
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The status and reason for any error a route throws.
    init(_ error: any Error) {
        switch error {
        case let refusal as ErrorReason:
            self = refusal
        case let error as SyncServerError:
            self.init(status: error.httpStatus, reason: error.localizedDescription)
        default:
            self.init(status: .internalServerError, reason: "The server failed: \(error.localizedDescription)")
        }
    }

    public var errorDescription: String? { "HTTP \(status): \(reason)" }

    private enum CodingKeys: String, CodingKey { case reason }

    public init(from decoder: any Decoder) throws {
        status = 0
        reason = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }

    /// The response: the status and `{"reason": …}`.
    var response: Response {
        // Encoding a struct of one string cannot fail; an empty body would still carry the status.
        let body = (try? JSONEncoder().encode(self)) ?? Data()
        var response = Self.response(body, status: HTTPResponse.Status(code: status))
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// A JSON response of an encodable value.
    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        // A pull's page copies each record's stored JSON instead of decoding and encoding it
        // again (about a quarter of the server's time in an initial sync, issue 49).
        if let page = value as? PullResponse {
            return response(try page.sortedKeysJSON(), status: status)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return response(try encoder.encode(value), status: status)
    }

    private static func response(_ body: Data, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    /// A decoding error in one line: what was wrong and where, without Foundation's dump.
    static func describe(decodingError error: any Error) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(context.debugDescription) (at \(path))"
        }
        switch error {
        case DecodingError.dataCorrupted(let context): return at(context)
        case DecodingError.keyNotFound(let key, let context): return "missing '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(at(context))")
        case DecodingError.typeMismatch(_, let context): return at(context)
        case DecodingError.valueNotFound(_, let context): return at(context)
        default: return error.localizedDescription
        }
    }
}

extension SyncServerError {

    /// The HTTP status a route answers this error with.
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .unauthorized, .unknownAccount: .unauthorized
        case .accountExists: .conflict
        case .tooManyRecords: .contentTooLarge
        case .invalidAccountName, .invalidPull, .invalidInbox: .badRequest
        case .unknownCommand: .notFound
        case .commandTooLarge: .contentTooLarge
        case .commandRelayUnavailable: .notImplemented
        case .assetStorageUnavailable: .notImplemented
        case .unknownAsset: .notFound
        case .invalidAssetRequest: .badRequest
        case .assetOffsetMismatch: .conflict
        case .assetChunkTooLarge: .contentTooLarge
        case .assetContentMismatch: .unprocessableContent
        case .assetRangeNotSatisfiable: .rangeNotSatisfiable
        case .storageFailed: .internalServerError
        case .storageUnavailable: .serviceUnavailable
        }
    }
}
