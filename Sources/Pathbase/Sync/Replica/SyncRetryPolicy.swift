/// How long ``AutomaticSync`` waits before retrying after a failure it may recover from (a
/// lost connection, a server error): doubling from ``initialDelay`` up to ``maximumDelay``,
/// each wait shortened by a random part of up to ``jitter`` so that many clients that lost
/// the same server do not come back at the same instant.
///
/// ```swift
/// let policy = SyncRetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(120))
/// let sync = AutomaticSync(replica: replica, retry: policy)
/// ```
public struct SyncRetryPolicy: Hashable, Sendable {

    /// The wait after the first failure.
    public var initialDelay: Duration

    /// The longest wait, however many failures came before.
    public var maximumDelay: Duration

    /// The part of each wait, from 0 to 1, that is taken off at random.
    public var jitter: Double

    /// A policy; `jitter` is clamped to 0...1.
    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(60), jitter: Double = 0.2) {
        self.initialDelay = max(initialDelay, .zero)
        self.maximumDelay = max(maximumDelay, self.initialDelay)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The default: half a second, doubling up to a minute, 20 % jitter.
    public static let standard = SyncRetryPolicy()

    /// The longest wait after `failures` failures in a row (1 for the first), before jitter.
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initialDelay
        for _ in 1 ..< max(failures, 1) {
            delay = delay * 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }

    /// The wait after `failures` failures in a row, with jitter applied.
    func jitteredDelay(afterFailures failures: Int) -> Duration {
        let delay = self.delay(afterFailures: failures)
        guard jitter > 0 else { return delay }
        return delay * (1 - Double.random(in: 0 ... jitter))
    }
}
