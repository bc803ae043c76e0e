/// The process's side of generated integer ids, shared by every collection handle on the
/// same storage: the lock that makes generating an id (read the counter, store it plus one)
/// one step, and the highest counter handed out.
///
/// ```swift
/// try GeneratedIdCounters.shared.withCounter(storage: database.storage, model: modelKey) { highest in ... }
/// ```
///
/// The highest counter matters when the database takes its stored counter back (the id was
/// handed out in a batch that then rolled back): the app may still hold a struct with that
/// id, so it is not handed out again while the storage is open. A fixed set of stripes,
/// picked by storage and model, meets handles made anywhere in the process; an entry goes
/// once its storage is released.
final class GeneratedIdCounters: @unchecked Sendable {
    // @unchecked: each stripe's counters are guarded by its lock.

    static let shared = GeneratedIdCounters()

    private struct Counter {
        weak var storage: AnyObject?
        let model: ModelKey
        var highest: Int
    }

    private final class Stripe {
        let lock = Lock()
        var counters: [Counter] = []
    }

    private let stripes = (0 ..< 64).map { _ in Stripe() }

    /// Runs `body` holding the lock of one collection's counter on one storage, with the
    /// highest counter handed out there in this process (0 at first) to read and raise.
    func withCounter<Result>(storage: AnyObject, model: ModelKey, _ body: (_ highest: inout Int) throws -> Result) rethrows -> Result {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(storage))
        hasher.combine(model)
        let stripe = stripes[Int(UInt(bitPattern: hasher.finalize()) % UInt(stripes.count))]
        return try stripe.lock.withLock {
            let index: Int
            if let found = stripe.counters.firstIndex(where: { $0.storage === storage && $0.model == model }) {
                index = found
            } else {
                stripe.counters.removeAll { $0.storage == nil }
                stripe.counters.append(Counter(storage: storage, model: model, highest: 0))
                index = stripe.counters.count - 1
            }
            return try body(&stripe.counters[index].highest)
        }
    }
}
