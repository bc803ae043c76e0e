/// The locks that make generating an integer id (read the counter, store it plus one) one
/// step, shared by every collection handle on the same storage.
///
/// ```swift
/// try GeneratedIdLocks.shared.withLock(storage: database.storageIdentity, model: modelKey) { ... }
/// ```
///
/// A fixed set of locks, picked by storage and model: handles made anywhere in the process
/// meet at the same lock without a registry that grows with every database opened.
final class GeneratedIdLocks: Sendable {

    static let shared = GeneratedIdLocks()

    private let locks = (0 ..< 64).map { _ in Lock() }

    /// Runs `body` holding the lock of one collection's counter on one storage.
    func withLock<Result>(storage: ObjectIdentifier, model: ModelKey, _ body: () throws -> Result) rethrows -> Result {
        var hasher = Hasher()
        hasher.combine(storage)
        hasher.combine(model)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(locks.count))
        return try locks[index].withLock(body)
    }
}
