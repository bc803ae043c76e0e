#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif
import Observation

/// The observers of the instances in an ``ObservableDatabase``: who is told when a value
/// changes.
///
/// You rarely use it directly. An ``ObservableDatabase`` owns one and tells it about every
/// write; model handles find it through ``Database/instanceObservers`` to register reads
/// with the Observation framework and to share one `objectWillChange` publisher per
/// instance:
///
/// ```swift
/// let database = ObservableDatabase(wrapping: InMemoryDatabase())
/// let observers = database.instanceObservers // the same object for every handle
/// ```
///
/// Reads are tracked per path, so `withObservationTracking` and SwiftUI re-run only when a
/// property they read changes. `objectWillChange` fires for any change of its instance,
/// including its status. Both fire on the thread that writes, before the value changes;
/// the change stream (``changes``) gets the path after it changed.
///
/// Safe to use from any thread.
public final class InstanceObservers: @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock`.

    /// Notifies `withObservationTracking` (and SwiftUI) of changes, one key path per
    /// database path.
    private let registrar = ObservationRegistrar()

    private let lock = Lock()
    /// The publisher of every instance with subscribers, and how many it has: an entry goes
    /// when its last subscription ends.
    private var publishers: [ModelInstance: (publisher: ObservableObjectPublisher, subscribers: Int)] = [:]
    /// The continuations of the running change streams.
    private var streams: [Int: AsyncStream<Path>.Continuation] = [:]
    private var nextStreamId = 0
    private var listeners: [Int: (Path) -> Void] = [:]
    /// The paths written in each running batch, outermost first (repeats allowed).
    private var batchWrites: [[Path]] = []

    init() {}

    // MARK: Observation framework

    /// Tells the Observation framework that the value at `path` was read.
    ///
    /// Generated model accessors call it for you; call it from hand-written accessors.
    public func access(_ path: Path) {
        registrar.access(ObservedPaths.shared, keyPath: \ObservedPaths.[path])
    }

    // MARK: Combine

    /// The publisher that fires before any value of an instance changes; equal for every
    /// handle of the instance.
    public func objectWillChange(model: ModelKey, instance: InstanceKey) -> InstanceWillChangePublisher {
        InstanceWillChangePublisher(observers: self, model: model, instance: instance)
    }

    /// Subscribes to an instance's changes; the instance's state is dropped when its last
    /// subscription ends.
    func subscribe<S: Subscriber>(_ subscriber: S, model: ModelKey, instance: InstanceKey) where S.Input == Void, S.Failure == Never {
        let key = ModelInstance(model: model, instance: instance)
        let publisher: ObservableObjectPublisher = lock.withLock {
            let entry = publishers[key] ?? (ObservableObjectPublisher(), 0)
            publishers[key] = (entry.publisher, entry.subscribers + 1)
            return entry.publisher
        }
        publisher.receive(
            subscriber: EndReportingSubscriber(downstream: subscriber) { [weak self] in
                self?.unsubscribe(key)
            })
    }

    private func unsubscribe(_ key: ModelInstance) {
        lock.withLock {
            guard let entry = publishers[key] else { return }
            publishers[key] = entry.subscribers > 1 ? (entry.publisher, entry.subscribers - 1) : nil
        }
    }

    /// The number of instances with subscribers to their changes.
    package var subscribedInstanceCount: Int {
        lock.withLock { publishers.count }
    }

    // MARK: Change stream

    /// The paths written from now on, in the order they were written, one stream per call.
    ///
    /// ```swift
    /// for await path in database.changes {
    ///     print("changed:", path)
    /// }
    /// ```
    ///
    /// The stream buffers every path until it is read, and ends when the task iterating
    /// it is cancelled. Writes inside a batch are reported as they are made, and again when
    /// a batch that throws takes them back.
    public var changes: AsyncStream<Path> {
        let (stream, continuation) = AsyncStream<Path>.makeStream()
        let id = lock.withLock {
            nextStreamId += 1
            streams[nextStreamId] = continuation
            return nextStreamId
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `body` with the path of every write, on the writing thread, right after the
    /// write; returns a token for ``removeListener(_:)``. Live queries use it.
    func addListener(_ body: @escaping (Path) -> Void) -> Int {
        lock.withLock {
            nextStreamId += 1
            listeners[nextStreamId] = body
            return nextStreamId
        }
    }

    /// How many observers are registered: instances with subscribers, change streams and
    /// listeners (live queries, typed change streams). Tests check that ended streams leave
    /// none behind.
    package var observerCount: Int {
        lock.withLock { publishers.count + streams.count + listeners.count }
    }

    /// Stops calling a listener added with ``addListener(_:)``.
    func removeListener(_ token: Int) {
        lock.withLock { _ = listeners.removeValue(forKey: token) }
    }

    // MARK: Writes

    /// Notifies every observer of `path`, around a write that `change` makes.
    func write(_ path: Path, _ change: () -> Void) {
        let keyPath = \ObservedPaths.[path]
        let (publisher, continuations, listeners): (ObservableObjectPublisher?, [AsyncStream<Path>.Continuation], [(Path) -> Void]) = lock.withLock {
            if !batchWrites.isEmpty { batchWrites[batchWrites.count - 1].append(path) }
            return (
                publishers[ModelInstance(model: path.model, instance: path.instance)]?.publisher,
                streams.isEmpty ? [] : Array(streams.values),
                self.listeners.isEmpty ? [] : Array(self.listeners.values)
            )
        }
        publisher?.send()
        registrar.willSet(ObservedPaths.shared, keyPath: keyPath)
        change()
        registrar.didSet(ObservedPaths.shared, keyPath: keyPath)
        for continuation in continuations { continuation.yield(path) }
        for listener in listeners { listener(path) }
    }

    // MARK: Batches

    /// A batch of the observed database began; call it inside the batch, where the
    /// database keeps other threads' batches out.
    func batchBegan() {
        lock.withLock { batchWrites.append([]) }
    }

    /// The batch's body ended: returns the paths it wrote, which also count as written by
    /// the enclosing batch, if any.
    func batchEnded() -> [Path] {
        lock.withLock {
            guard let written = batchWrites.popLast() else { return [] }
            if !batchWrites.isEmpty { batchWrites[batchWrites.count - 1] += written }
            return written
        }
    }

    /// The database took back a batch's writes: observers were told of each as it was
    /// made, so they are told again, now that the paths hold their stored values (live
    /// results read them again).
    func takenBack(_ paths: [Path]) {
        var seen = Set<Path>()
        for path in paths where seen.insert(path).inserted {
            write(path) {}
        }
    }
}

/// The subject whose key paths stand for database paths in the ``InstanceObservers``
/// registrar: `\ObservedPaths.[path]` is one key path per path, equal for equal paths.
final class ObservedPaths: Observable, Sendable {

    static let shared = ObservedPaths()

    subscript(path: Path) -> Int { 0 }
}

extension Database {

    /// The observers of this database's instances: `nil` unless the database is an
    /// ``ObservableDatabase`` or a wrapper that forwards to one.
    ///
    /// Model accessors ask for it on every read; keep it a constant `nil` (the default) in
    /// your own databases, or forward the wrapped database's in a wrapper.
    public var instanceObservers: InstanceObservers? { nil }
}
