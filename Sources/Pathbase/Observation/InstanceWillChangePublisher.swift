#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The `objectWillChange` publisher of a model: fires before any value of its instance
/// changes, on the writing thread.
///
/// ```swift
/// let subscription = item.objectWillChange.sink { print("will change") }
/// ```
///
/// Every handle of an instance returns an equal publisher, which reaches the same
/// subscribers. The observers keep state for an instance only while it has subscribers, so
/// observing many instances over time costs nothing once their subscriptions end. Over a
/// database that is not observed it never fires.
public struct InstanceWillChangePublisher: Publisher, Equatable {

    public typealias Output = Void
    public typealias Failure = Never

    let observers: InstanceObservers?
    let model: ModelKey
    let instance: InstanceKey

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        guard let observers else {
            // Not observed: a subscription that never delivers.
            ObservableObjectPublisher().receive(subscriber: subscriber)
            return
        }
        observers.subscribe(subscriber, model: model, instance: instance)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.observers === rhs.observers && lhs.model == rhs.model && lhs.instance == rhs.instance
    }
}

/// Passes a subscriber's events through, and tells the observers once when its
/// subscription ends (cancelled, or the publisher finished), so they can drop an instance's
/// publisher that no one listens to any more.
final class EndReportingSubscriber<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
where Downstream.Input == Void, Downstream.Failure == Never {
    // @unchecked Sendable: `upstream` and `ended` are guarded by `lock`; `downstream` is
    // only used as Combine's contract allows (one event at a time).

    typealias Input = Void
    typealias Failure = Never

    let combineIdentifier = CombineIdentifier()
    private let downstream: Downstream
    private let onEnd: () -> Void
    private let lock = Lock()
    private var upstream: (any Subscription)?
    private var ended = false

    init(downstream: Downstream, onEnd: @escaping () -> Void) {
        self.downstream = downstream
        self.onEnd = onEnd
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Void) -> Subscribers.Demand {
        downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        downstream.receive(completion: completion)
        end()
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { upstream }?.request(demand)
    }

    func cancel() {
        lock.withLock { upstream }?.cancel()
        end()
    }

    private func end() {
        let first: Bool = lock.withLock {
            defer {
                ended = true
                upstream = nil
            }
            return !ended
        }
        if first { onEnd() }
    }
}
