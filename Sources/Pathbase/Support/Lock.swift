#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock guarding the mutable state of the thread-safe databases.
///
/// `Synchronization.Mutex` would need macOS 15 and `sending` results; databases return
/// non-`Sendable` values read under the lock, so a plain pthread mutex fits better here.
final class Lock: @unchecked Sendable {
    // @unchecked: `mutex` is used only through pthread calls, which are safe from any thread.

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the lock; pair with ``unlock()``. Prefer ``withLock(_:)``: the caches use
    /// these where a closure's generic result would cost a metadata lookup per call.
    @inline(__always)
    func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock taken with ``lock()``.
    @inline(__always)
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
