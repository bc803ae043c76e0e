import Atomics
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock that the thread holding it may take again.
///
/// Batches hold it for their whole body, which reads and writes the same database on the
/// same thread; other threads wait until the batch ends. `package` so that every Pathbase
/// module shares this one implementation.
///
/// The thread holding it is noted in ``owner``, so that taking it again (every read inside
/// a `read { }`) is one atomic load and a comparison instead of a recursive pthread mutex's
/// lock and unlock, which were a fifth of a listing's property reads. Only the holder ever
/// stores its own thread in ``owner``, and clears it before unlocking, so another thread
/// never reads its own thread there.
package final class RecursiveLock: @unchecked Sendable {
    // @unchecked: `mutex` is used only through pthread calls, `owner` only through atomics.

    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The holding thread (``currentThread``), or 0.
    @usableFromInline let owner: UnsafeAtomic<UInt>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        owner = .create(0)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        owner.destroy()
    }

    @inlinable
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let acquired = acquire()
        defer { release(acquired) }
        return try body()
    }

    /// Takes the lock unless this thread holds it already; pass the result to
    /// ``release(_:)``. For a module's own `withLock` on a hot path: this one's generic
    /// closure is not inlined across modules, even when marked so, and cost as much as the
    /// work it guarded.
    @inlinable
    package func acquire() -> Bool {
        let thread = Self.currentThread
        if owner.load(ordering: .relaxed) == thread { return false }
        pthread_mutex_lock(mutex)
        owner.store(thread, ordering: .relaxed)
        return true
    }

    /// Releases the lock if ``acquire()`` took it.
    @inlinable
    package func release(_ acquired: Bool) {
        guard acquired else { return }
        owner.store(0, ordering: .relaxed)
        pthread_mutex_unlock(mutex)
    }

    /// The calling thread as a number that no other living thread has (never 0).
    @inlinable
    static var currentThread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
