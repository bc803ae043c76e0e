import Foundation
import Pathbase

/// Fans an account's new-record notices out to the live connections of that account in
/// this server process.
///
/// ```swift
/// let notices = server.changes.subscribe(account)
/// server.changes.publish(cursor: 120, for: account)
/// for await cursor in notices { print("records up to", cursor) }
/// ```
///
/// Each subscriber keeps only the newest cursor it has not read yet, so a slow connection
/// costs one number, not a queue. A notice that does not pass the cursor already published
/// for the account is dropped (the same append heard from the push and from the store).
/// Safe to use from any thread.
public final class AccountChanges: Sendable {

    private struct State {
        var subscribers: [AccountID: [Int: AsyncStream<Int64>.Continuation]] = [:]
        var published: [AccountID: Int64] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// An empty fan-out.
    public init() {}

    /// The cursors published for `account` from now on, until the stream is dropped.
    public func subscribe(_ account: AccountID) -> AsyncStream<Int64> {
        let (stream, continuation) = AsyncStream<Int64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: Int = state.withLock { state in
            state.nextID += 1
            state.subscribers[account, default: [:]][state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id, from: account) }
        return stream
    }

    /// Tells the account's subscribers that its log reached `cursor`.
    public func publish(cursor: Int64, for account: AccountID) {
        state.withLock { state in
            guard cursor > state.published[account, default: 0] else { return }
            state.published[account] = cursor
            // Yielded under the lock: two publishers must not deliver out of order, or a
            // subscriber's newest-only buffer could end on the older cursor.
            for listener in state.subscribers[account, default: [:]].values { listener.yield(cursor) }
        }
    }

    /// The latest cursor published for `account` by this process, 0 before the first.
    public func latestPublished(for account: AccountID) -> Int64 {
        state.withLock { $0.published[account, default: 0] }
    }

    /// Ends every subscription, which closes this process's live connections; their
    /// clients poll until they reconnect. For taking a server out of a load balancer.
    public func disconnectAll() {
        let all: [AsyncStream<Int64>.Continuation] = state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }

    /// How many live connections are subscribed, over all accounts.
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } }
    }

    /// The accounts with at least one subscriber.
    var subscribedAccounts: Set<AccountID> {
        state.withLock { Set($0.subscribers.keys) }
    }

    private func unsubscribe(_ id: Int, from account: AccountID) {
        state.withLock { state in
            state.subscribers[account]?[id] = nil
            if state.subscribers[account]?.isEmpty == true { state.subscribers[account] = nil }
        }
    }
}
