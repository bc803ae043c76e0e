import Observation

/// A ``Replica``'s ``ReplicaStatus`` as it changes, for a UI: an async sequence of states
/// (``updates``) and an `Observable` value (``status``), safe to read from any thread while
/// the replica syncs.
///
/// ```swift
/// let monitor = replica.monitor
/// Task {
///     for await status in monitor.updates {
///         print(status.pulledCount, "of", status.serverTotal ?? 0)
///         if status.isInitialSyncComplete { break }
///     }
/// }
/// try await replica.sync()
/// ```
///
/// The replica updates it after every pulled page (so progress shows during an initial
/// sync), after every push, and when a sync succeeds or fails. In SwiftUI, reading
/// ``status`` in a view's body tracks it (Observation framework), as for models.
public final class ReplicaMonitor: Observable, Sendable {

    private struct Shared {
        var status: ReplicaStatus
        var streams: [Int: AsyncStream<ReplicaStatus>.Continuation] = [:]
        var listeners: [Int: @Sendable (ReplicaStatus) -> Void] = [:]
        var nextStream = 0
    }

    private let registrar = ObservationRegistrar()
    private let shared: Locked<Shared>

    init(_ status: ReplicaStatus) {
        shared = Locked(Shared(status: status))
    }

    deinit {
        for stream in shared.withLock({ Array($0.streams.values) }) { stream.finish() }
    }

    /// The current status; tracked by `withObservationTracking` and SwiftUI.
    public var status: ReplicaStatus {
        registrar.access(self, keyPath: \.status)
        return shared.withLock { $0.status }
    }

    /// Every status from now on, starting with the current one; ends when the monitor is
    /// released (with its replica and any ``AutomaticSync`` of it).
    ///
    /// ```swift
    /// for await status in replica.monitor.updates { print(status) }
    /// ```
    public var updates: AsyncStream<ReplicaStatus> {
        let (stream, continuation) = AsyncStream<ReplicaStatus>.makeStream(bufferingPolicy: .unbounded)
        shared.withLock { shared in
            continuation.yield(shared.status)
            shared.nextStream += 1
            let id = shared.nextStream
            shared.streams[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.shared.withLock { $0.streams.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Calls `listener` with the current status at once, then with every status from now
    /// on, under the monitor's lock: in the order they were made, none missed and none
    /// older heard after a newer one (a copy kept by the listener is never stale; it must
    /// not call back into the monitor). Returns its token for ``removeListener(_:)``.
    func addListener(_ listener: @escaping @Sendable (ReplicaStatus) -> Void) -> Int {
        shared.withLock { shared in
            shared.nextStream += 1
            shared.listeners[shared.nextStream] = listener
            listener(shared.status)
            return shared.nextStream
        }
    }

    /// Stops calling the listener of `token`.
    func removeListener(_ token: Int) {
        _ = shared.withLock { $0.listeners.removeValue(forKey: token) }
    }

    /// Changes the status; observers, listeners and streams hear of it when it changed.
    /// Streams get the states in the order they were made (yielded under the lock).
    func update(_ change: (inout ReplicaStatus) -> Void) {
        var next = shared.current.status
        change(&next)
        guard next != shared.current.status else { return }
        registrar.withMutation(of: self, keyPath: \.status) {
            shared.withLock { shared in
                change(&shared.status)
                for stream in shared.streams.values { stream.yield(shared.status) }
                for listener in shared.listeners.values { listener(shared.status) }
            }
        }
    }
}
