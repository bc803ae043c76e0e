import Foundation

/// Keeps a ``Replica`` in sync by itself: after local changes, on an interval, and when
/// asked; retries with backoff when the network or the server fails, and stops with the
/// reason when the server refuses (a wrong token, a request it cannot read).
///
/// ```swift
/// let database = ObservableDatabase(wrapping: try SQLiteDatabase(path: "notes.sqlite"))
/// let replica = try Replica(database: database, transport: HTTPSyncTransport(server: url, token: token))
/// let sync = AutomaticSync(replica: replica, interval: .seconds(30))
/// for await status in sync.states {
///     print("\(status.pendingCount) changes to push")
///     if case .stopped(let reason?) = status.state { print("sync stopped:", reason) }
/// }
/// ```
///
/// **Commands.** With a ``CommandRelayTransport`` (such as ``HTTPSyncTransport``), each
/// sync also runs the commands other replicas sent to this one
/// (``Replica/runReceivedCommands(limit:modelMap:)``) and pushes what they changed.
///
/// **Assets.** Each sync moves the content of the assets its records reference, as
/// ``Replica/sync()`` does: uploads before pushing, downloads after pulling; an asset that
/// cannot move is in the report's ``SyncReport/assetFailures`` and does not stop the sync.
///
/// **When it syncs.** Once at the start; then after each local write, waiting ``debounce``
/// so that a burst of writes goes in one push (the database must be an
/// ``ObservableDatabase`` or a wrapper of one to be heard; otherwise call ``syncNow()``);
/// every `interval` to pull what others pushed; and on ``syncNow()``. Writes made during a
/// sync cause another one right after it.
///
/// **Live updates.** With `live` (such as `WebSocketLiveUpdates` of `PathbaseLiveSync`),
/// the server's notice of new records starts a pull at once, and the interval is not polled
/// while the line is up (``isLive``). When the line drops, it syncs once, polls on the
/// interval again, and reconnects after ``SyncRetryPolicy/delay(afterFailures:)``.
///
/// **Failures.** A failure that may go away — no connection, a timeout, HTTP 5xx, 408 or
/// 429, a database that could not store a page — is retried after
/// ``SyncRetryPolicy/delay(afterFailures:)`` (doubling, with jitter) until a sync
/// succeeds. A refusal that retrying cannot change — another HTTP 4xx, a record that does
/// not decode — stops the automatic sync with ``State/stopped(reason:)``; records stay
/// pending, nothing is lost, and a new `AutomaticSync` (or ``Replica/sync()``) starts
/// again once the cause is fixed.
///
/// The replica is handed over: only this object uses it from then on. ``stop()`` or the
/// release of this object ends the work.
public final class AutomaticSync: Sendable {

    /// What the automatic sync is doing.
    public enum State: Hashable, Sendable {

        /// Waiting for a change, the interval or ``AutomaticSync/syncNow()``; with the report
        /// of the last successful sync, `nil` before the first.
        case idle(lastReport: SyncReport?)

        /// A sync is running.
        case syncing

        /// The last `failures` syncs in a row failed with `reason`; the next try is after
        /// `delay`.
        case retrying(failures: Int, delay: Duration, reason: String)

        /// No more syncs: refused by the server with `reason`, or `nil` after
        /// ``AutomaticSync/stop()``.
        case stopped(reason: String?)
    }

    /// How long it waits after a local write before syncing, to group a burst of writes.
    public let debounce: Duration

    /// How long it waits between syncs when nothing changes locally; `nil` for never.
    public let interval: Duration?

    /// How it waits before retrying a failed sync.
    public let retry: SyncRetryPolicy

    /// The replica's status as it changes — pending count, last successful sync, last
    /// error, initial-sync progress — the same object as the replica's ``Replica/monitor``.
    ///
    /// ```swift
    /// for await status in sync.monitor.updates where !status.isInitialSyncComplete {
    ///     print("pulled \(status.pulledCount) of \(status.serverTotal ?? 0)")
    /// }
    /// ```
    public let monitor: ReplicaMonitor

    private let loop: LoopState
    private let wake: AsyncStream<Wake>.Continuation
    private let work: Task<Void, Never>
    private let ticks: Task<Void, Never>?
    private let liveLine: Task<Void, Never>?
    private let listener: (observers: InstanceObservers, token: Int)?

    /// Starts keeping `replica` in sync; the first sync starts at once.
    ///
    /// ```swift
    /// let sync = AutomaticSync(replica: replica, interval: .seconds(60), debounce: .milliseconds(200))
    /// ```
    public init(replica: sending Replica, interval: Duration? = .seconds(60), debounce: Duration = .milliseconds(100), retry: SyncRetryPolicy = .standard, live: (any LiveUpdates)? = nil) {
        self.interval = interval
        self.debounce = debounce
        self.retry = retry
        self.monitor = replica.monitor
        let loop = LoopState(monitor: replica.monitor)
        self.loop = loop
        let (wakes, wake) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        if let observers = replica.database.instanceObservers {
            let token = observers.addListener { path in
                // The replica's own bookkeeping is no local change to push.
                if path.model != ReplicaState.model { wake.yield(.localWrite) }
            }
            listener = (observers, token)
        } else {
            listener = nil
        }
        if let interval {
            ticks = Task {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    // A live line tells of new records; polling is its fallback.
                    if !loop.isLive { wake.yield(.remote) }
                }
            }
        } else {
            ticks = nil
        }
        liveLine = live.map { live in
            Task { await Self.listen(to: live, wake: wake, retry: retry, loop: loop) }
        }
        wake.yield(.remote)
        work = Task {
            await Self.run(replica, wakes: wakes, debounce: debounce, retry: retry, loop: loop)
        }
    }

    deinit {
        stop()
    }

    /// What it is doing now.
    public var state: State { loop.current }

    /// The replica's status now (see ``monitor``): what ``state`` does not tell, such as
    /// the pending count and the initial sync's progress.
    public var replicaStatus: ReplicaStatus { monitor.status }

    /// Every replica status from now on, starting with the current one: updated after each
    /// pulled page, push and sync (see ``ReplicaMonitor/updates``).
    ///
    /// ```swift
    /// for await status in sync.replicaStatuses { print(status) }
    /// ```
    public var replicaStatuses: AsyncStream<ReplicaStatus> { monitor.updates }

    /// Whether the live line to the server is up: new records are pulled when the server
    /// tells, and the interval is not polled. Always `false` without `live`.
    public var isLive: Bool { loop.isLive }

    /// What it is doing and where the replica stands now: ``state`` with ``replicaStatus``.
    public var status: Status { loop.currentStatus }

    /// Every ``Status`` from now on, starting with the current one: a new one when the
    /// ``state`` changes and when the replica's status does (after each pulled page, push
    /// and sync, so an initial sync's progress shows); ends after ``State/stopped(reason:)``.
    ///
    /// ```swift
    /// for await status in sync.states {
    ///     print(status.state, status.pendingCount, status.initialSyncProgress ?? 0)
    ///     if case .stopped(let reason?) = status.state { print("stopped:", reason) }
    /// }
    /// ```
    public var states: AsyncStream<Status> { loop.stream() }

    /// Syncs as soon as the running sync (if any) ends, without waiting for the interval;
    /// during a retry wait, retries at once.
    public func syncNow() {
        loop.cutRetryWait()
        wake.yield(.remote)
    }

    /// Stops syncing: the running sync and the live line are cancelled, and the replica
    /// keeps what it has stored (pending records stay pending). On Linux an HTTP request
    /// under way still runs to its answer or timeout, unused (see ``HTTPSyncTransport``).
    public func stop() {
        if let listener { listener.observers.removeListener(listener.token) }
        ticks?.cancel()
        liveLine?.cancel()
        work.cancel()
        wake.finish()
        loop.finish(reason: nil)
    }

    // MARK: The loop

    /// Why the loop syncs: a local write waits for the debounce, anything else goes at once.
    private enum Wake: Sendable {
        case localWrite
        case remote
    }

    private static func run(_ replica: Replica, wakes: AsyncStream<Wake>, debounce: Duration, retry: SyncRetryPolicy, loop: LoopState) async {
        defer { loop.finish(reason: nil) }
        for await reason in wakes {
            if reason == .localWrite, debounce > .zero {
                do { try await Task.sleep(for: debounce) } catch { return }
            }
            var failures = 0
            while true {
                if Task.isCancelled { return }
                loop.set(.syncing)
                do {
                    var report = try await replica.sync()
                    // Commands other replicas left for this one; their changes go out at once.
                    if replica.relaysCommands, try await replica.runReceivedCommands() > 0 {
                        report.add(try await replica.sync())
                    }
                    loop.set(.idle(lastReport: report))
                    loop.notePulled(to: report.cursor)
                    break
                } catch {
                    if Task.isCancelled { return }
                    if let reason = stopReason(for: error) {
                        loop.finish(reason: reason)
                        return
                    }
                    failures += 1
                    let delay = retry.jitteredDelay(afterFailures: failures)
                    loop.set(.retrying(failures: failures, delay: delay, reason: describe(error)))
                    guard await loop.waitForRetry(delay) else { return }
                }
            }
        }
    }

    /// Keeps the live line up: wakes the loop when the server tells of records past the
    /// replica's cursor, and reconnects with the retry policy when the line ends.
    private static func listen(to live: any LiveUpdates, wake: AsyncStream<Wake>.Continuation, retry: SyncRetryPolicy, loop: LoopState) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await live.listen(
                    connected: {
                        loop.setLive(true)
                        // What arrived while the line was down.
                        wake.yield(.remote)
                    },
                    changed: { notice in
                        if notice.cursor > loop.pulledCursor { wake.yield(.remote) }
                    })
            } catch {
                // A drop, a refusal or no server: polling takes over until the line is back.
            }
            failures = loop.setLive(false) ? 1 : failures + 1
            if Task.isCancelled { return }
            wake.yield(.remote)
            do { try await Task.sleep(for: retry.jitteredDelay(afterFailures: failures)) } catch { return }
        }
    }

    /// Why retrying `error` cannot help (the reason shown when it stops), or `nil` when a
    /// later try may succeed.
    ///
    /// ```swift
    /// do { try await replica.sync() } catch {
    ///     if let reason = AutomaticSync.stopReason(for: error) { show(reason) } else { retryLater() }
    /// }
    /// ```
    public static func stopReason(for error: any Error) -> String? {
        switch error {
        case let refusal as SyncTransportError:
            return refusal.isTransient ? nil : describe(refusal)
        case let failure as ReplicaError:
            switch failure {
            case .storageFailed, .pushUnanswered: return nil
            case .historyRequired, .undecodableRecord, .notRejected, .invalidLimit, .commandRelayUnsupported, .unknownOwner, .replicaIdInUse: return describe(failure)
            }
        default:
            return nil // lost connections, timeouts: the network's failures
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
    }

    // MARK: State shared with the loop

    /// The state, its streams, and the retry wait that ``syncNow()`` cuts short; shared by
    /// the object and its loop so that the loop does not keep the object alive.
    private final class LoopState: Sendable {

        private struct Shared {
            var state = State.idle(lastReport: nil)
            /// The monitor's latest status, copied by its listener: reading the monitor
            /// under this lock could deadlock with the listener, which runs under its lock.
            var replica: ReplicaStatus
            var streams: [Int: AsyncStream<Status>.Continuation] = [:]
            var nextStream = 0
            var retryWait: CheckedContinuation<Void, Never>?
            var retryCut = false
            var live = false
            var pulled: Int64 = 0
        }

        private let shared: Locked<Shared>
        private let monitor: ReplicaMonitor
        private let listener: Int

        init(monitor: ReplicaMonitor) {
            // The listener's first call, before `addListener` returns, stores the current status.
            let shared = Locked(Shared(replica: ReplicaStatus()))
            self.shared = shared
            self.monitor = monitor
            listener = monitor.addListener { [weak shared] replica in
                guard let shared else { return }
                let (listeners, status): ([AsyncStream<Status>.Continuation], Status) = shared.withLock { shared in
                    shared.replica = replica
                    if case .stopped = shared.state { return ([], Status(state: shared.state, replica: replica)) }
                    return (Array(shared.streams.values), Status(state: shared.state, replica: replica))
                }
                for listener in listeners { listener.yield(status) }
            }
        }

        deinit {
            monitor.removeListener(listener)
        }

        var current: State { shared.withLock { $0.state } }

        var currentStatus: Status { shared.withLock { Status(state: $0.state, replica: $0.replica) } }

        var isLive: Bool { shared.withLock { $0.live } }

        /// Sets whether the live line is up; returns whether it was.
        @discardableResult
        func setLive(_ up: Bool) -> Bool {
            shared.withLock { shared in
                defer { shared.live = up }
                return shared.live
            }
        }

        /// The cursor of the last successful sync: notices up to it bring nothing new.
        var pulledCursor: Int64 { shared.withLock { $0.pulled } }

        func notePulled(to cursor: Int64) {
            shared.withLock { $0.pulled = max($0.pulled, cursor) }
        }

        func stream() -> AsyncStream<Status> {
            let (stream, continuation) = AsyncStream<Status>.makeStream(bufferingPolicy: .unbounded)
            let finished: Bool = shared.withLock { shared in
                continuation.yield(Status(state: shared.state, replica: shared.replica))
                if case .stopped = shared.state { return true }
                shared.nextStream += 1
                let id = shared.nextStream
                shared.streams[id] = continuation
                continuation.onTermination = { [weak self] _ in
                    guard let self else { return }
                    self.shared.withLock { _ = $0.streams.removeValue(forKey: id) }
                }
                return false
            }
            if finished { continuation.finish() }
            return stream
        }

        func set(_ new: State) {
            let (listeners, status): ([AsyncStream<Status>.Continuation], Status) = shared.withLock { shared in
                let status = Status(state: new, replica: shared.replica)
                if case .stopped = shared.state { return ([], status) }
                shared.state = new
                // A syncNow() from here on cuts the coming retry wait short.
                if case .retrying = new { shared.retryCut = false }
                return (Array(shared.streams.values), status)
            }
            for listener in listeners { listener.yield(status) }
        }

        /// Stops for good; the first call wins.
        func finish(reason: String?) {
            let (listeners, status): ([AsyncStream<Status>.Continuation], Status) = shared.withLock { shared in
                let status = Status(state: .stopped(reason: reason), replica: shared.replica)
                if case .stopped = shared.state { return ([], status) }
                shared.state = .stopped(reason: reason)
                defer { shared.streams = [:] }
                return (Array(shared.streams.values), status)
            }
            for listener in listeners {
                listener.yield(status)
                listener.finish()
            }
        }

        /// Waits `delay`, less if ``cutRetryWait()`` is called; `false` when cancelled.
        func waitForRetry(_ delay: Duration) async -> Bool {
            let sleeper = Task {
                try await Task.sleep(for: delay)
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let cut: Bool = shared.withLock { shared in
                        if shared.retryCut { return true }
                        shared.retryWait = continuation
                        return false
                    }
                    if cut { continuation.resume() }
                    Task { [weak self] in
                        _ = try? await sleeper.value // cancelled or elapsed: either ends the wait
                        self?.resumeRetryWait()
                    }
                }
            } onCancel: {
                sleeper.cancel()
                self.resumeRetryWait()
            }
            sleeper.cancel()
            return !Task.isCancelled
        }

        func cutRetryWait() {
            shared.withLock { $0.retryCut = true }
            resumeRetryWait()
        }

        private func resumeRetryWait() {
            let waiting: CheckedContinuation<Void, Never>? = shared.withLock { shared in
                defer { shared.retryWait = nil }
                return shared.retryWait
            }
            waiting?.resume()
        }
    }
}
