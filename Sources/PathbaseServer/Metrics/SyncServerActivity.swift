import Foundation
import Pathbase

/// What a running sync server counts for its metrics: requests per route and status class,
/// and the cursor each replica last pulled to. Kept in memory, so it starts empty when the
/// server starts; the stored records and accounts come from the store.
///
/// ```swift
/// server.activity.countRequest(route: "POST /v1/push", status: 200)
/// server.activity.notePull(account: account, replica: 7, cursor: 120)
/// print(server.activity.requestCounts) // ["POST /v1/push": ["2xx": 1]]
/// ```
///
/// A replica id comes from the client, so at most ``maximumReplicasPerAccount`` are kept per
/// account (the least recently pulling one goes first): a client inventing ids cannot grow
/// the server's memory without bound. Safe to use from any thread.
public final class SyncServerActivity: Sendable {

    /// How many replicas' cursors are kept per account.
    public let maximumReplicasPerAccount: Int

    /// Where a replica last pulled to, and when (a counter, for eviction).
    struct Pull {
        var cursor: Int64
        var order: UInt64
    }

    private struct State {
        var requests: [String: [String: Int]] = [:]
        var pulls: [AccountID: [UInt32: Pull]] = [:]
        var pullCount: UInt64 = 0
    }

    private let state = Locked(State())

    /// Empty counts; `maximumReplicasPerAccount` bounds the replicas kept per account.
    public init(maximumReplicasPerAccount: Int = 1024) {
        self.maximumReplicasPerAccount = max(1, maximumReplicasPerAccount)
    }

    /// Counts one answered request of a route (`"POST /v1/push"`) by its status class (`"2xx"`).
    public func countRequest(route: String, status: Int) {
        let statusClass = "\(status / 100)xx"
        state.withLock { $0.requests[route, default: [:]][statusClass, default: 0] += 1 }
    }

    /// The requests answered so far, by route and status class.
    public var requestCounts: [String: [String: Int]] {
        state.withLock { $0.requests }
    }

    /// Notes that a replica of an account pulled up to `cursor`.
    public func notePull(account: AccountID, replica: UInt32, cursor: Int64) {
        let maximum = maximumReplicasPerAccount
        state.withLock { state in
            state.pullCount += 1
            var replicas = state.pulls[account, default: [:]]
            replicas[replica] = Pull(cursor: cursor, order: state.pullCount)
            if replicas.count > maximum, let stalest = replicas.min(by: { $0.value.order < $1.value.order })?.key {
                replicas[stalest] = nil
            }
            state.pulls[account] = replicas
        }
    }

    /// The cursor each replica of an account last pulled to, by replica id.
    public func pulledCursors(of account: AccountID) -> [UInt32: Int64] {
        state.withLock { $0.pulls[account, default: [:]].mapValues(\.cursor) }
    }
}
