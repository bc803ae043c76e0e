/// The paths of a sync server's HTTP endpoints, relative to its address: the one table that
/// the client (``HTTPSyncTransport``, the live line) and the server's routes are built from,
/// so the two cannot drift apart.
package enum SyncEndpoint {

    /// `POST`: a ``PushRequest``, answered with a ``PushResponse``.
    package static let push = "v1/push"

    /// `POST`: a ``PullRequest``, answered with a ``PullResponse``.
    package static let pull = "v1/pull"

    /// `POST`: a command for another replica, its inbox, an answer, a command's result.
    package static let sendCommand = "v1/commands/send"
    package static let commandInbox = "v1/commands/inbox"
    package static let answerCommand = "v1/commands/answer"
    package static let commandResult = "v1/commands/result"

    /// `POST`: which of a list of assets the server lacks.
    package static let missingAssets = "v1/assets/missing"

    /// `PUT` and `GET` of `assets/HASH`: an asset's content, in chunks and ranges.
    package static let assets = "v1/assets"

    /// `GET`, upgraded to a WebSocket: the live line.
    package static let live = "v1/live"

    /// `GET`: whether the server answers (public), and its metrics (the metrics token).
    package static let health = "v1/health"
    package static let metrics = "v1/metrics"

    /// The content of the asset with this hash.
    package static func asset(_ hash: String) -> String { "\(assets)/\(hash)" }
}
