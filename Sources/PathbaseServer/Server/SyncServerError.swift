import Foundation
import Pathbase

/// Why a sync server refused a request or an account operation. Nothing was changed.
///
/// ```swift
/// do {
///     _ = try await server.pull(PullRequest(after: 0, limit: 100), token: token)
/// } catch SyncServerError.unauthorized {
///     print("wrong token")
/// }
/// ```
///
/// The HTTP routes answer each case with a 4xx (500 for ``storageFailed(_:)``, 503 for
/// ``storageUnavailable(_:)``) and the
/// description as a JSON reason.
public enum SyncServerError: Error, Hashable, Sendable, LocalizedError {

    /// No account has this token.
    case unauthorized

    /// An account with this name exists already.
    case accountExists(String)

    /// An account name that is empty or too long.
    case invalidAccountName(String)

    /// The store has no such account.
    case unknownAccount(AccountID)

    /// A push with more records than the server takes at once.
    case tooManyRecords(count: Int, maximum: Int)

    /// A pull with a limit below 1 or a cursor below 0.
    case invalidPull(after: Int64, limit: Int)

    /// The store failed; nothing of the request was stored.
    case storageFailed(String)

    /// The store did not answer in time or cannot be reached (its database is restarting,
    /// say); retrying later may succeed. A push may or may not have been stored: retrying
    /// it is safe, as appends are idempotent.
    case storageUnavailable(String)

    /// The account has no relayed command with this number, or it is for another replica.
    case unknownCommand(Int64)

    /// A relayed command or answer larger than the server keeps, in bytes.
    case commandTooLarge(size: Int, maximum: Int)

    /// The server's store does not queue commands (see ``CommandQueueStore``).
    case commandRelayUnavailable

    /// An inbox request naming no replica, or with a limit below 1.
    case invalidInbox

    /// The server's store does not keep asset content (see ``AssetContentStore``).
    case assetStorageUnavailable

    /// The account holds no complete content with this hash.
    case unknownAsset(String)

    /// An asset request that cannot be served: an invalid hash, size, offset or range, or
    /// too many assets at once; the reason says which.
    case invalidAssetRequest(String)

    /// A chunk at another byte than where the server's copy of the asset ends.
    case assetOffsetMismatch(hash: String, offset: Int64, received: Int64)

    /// A chunk larger than the server takes at once, in bytes.
    case assetChunkTooLarge(size: Int, maximum: Int)

    /// The uploaded content does not have the asset's hash: the partial copy was removed,
    /// nothing is stored.
    case assetContentMismatch(hash: String, foundHash: String)

    /// A download range that starts at or past the end of the asset.
    case assetRangeNotSatisfiable(offset: Int64, size: Int64)

    public var errorDescription: String? {
        switch self {
        case .unauthorized: "The token belongs to no account"
        case .accountExists(let name): "An account named '\(name)' exists already"
        case .invalidAccountName(let name): "'\(name)' is not a valid account name: it must have 1 to 100 characters"
        case .unknownAccount(let account): "There is no \(account)"
        case .tooManyRecords(let count, let maximum): "A push of \(count) records; the server takes at most \(maximum) at once"
        case .invalidPull(let after, let limit): "Invalid pull after \(after) with limit \(limit): the cursor must be at least 0 and the limit at least 1"
        case .storageFailed(let reason): "The server's store failed, nothing was stored: \(reason)"
        case .storageUnavailable(let reason): "The server's store is unavailable; retry later: \(reason)"
        case .unknownCommand(let id): "There is no command \(id) for this replica in this account"
        case .commandTooLarge(let size, let maximum): "A command or answer of \(size) bytes; the server keeps at most \(maximum)"
        case .commandRelayUnavailable: "This server's store does not relay commands"
        case .invalidInbox: "An inbox request must name at least one replica and ask for at least 1 command"
        case .assetStorageUnavailable: "This server's store does not keep asset content"
        case .unknownAsset(let hash): "This account holds no asset \(hash)"
        case .invalidAssetRequest(let reason): "Invalid asset request: \(reason)"
        case .assetOffsetMismatch(let hash, let offset, let received): "A chunk of asset \(hash) at byte \(offset), but the server holds \(received) bytes of it: send the chunk at byte \(received)"
        case .assetChunkTooLarge(let size, let maximum): "An asset chunk of \(size) bytes; the server takes at most \(maximum) at once"
        case .assetContentMismatch(let hash, let foundHash): "The content uploaded for asset \(hash) has the hash \(foundHash); nothing was stored, upload it again from byte 0"
        case .assetRangeNotSatisfiable(let offset, let size): "A range from byte \(offset) of an asset of \(size) bytes"
        }
    }
}
