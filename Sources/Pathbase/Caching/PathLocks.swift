/// A fixed set of locks, one picked per ``Path``, for ``CachedDatabase``.
///
/// Writing a path to the wrapped database and updating the cache must happen as one step,
/// and so must reading a missed path and filling the cache; otherwise a slow reader could
/// put back a value that a writer has just replaced. Locking per path (by stripe) keeps
/// operations on different paths running in parallel.
struct PathLocks: Sendable {

    private static let stripeCount = 64

    private let locks: [Lock] = (0..<PathLocks.stripeCount).map { _ in Lock() }

    /// The lock serializing cache updates of a path.
    @inline(__always)
    func lock(for path: Path) -> Lock {
        var mixed = UInt64(UInt(bitPattern: path.instance))
        mixed = (mixed ^ UInt64(UInt(bitPattern: path.property)) &* 0x9E37_79B9) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= UInt64(UInt(bitPattern: path.model)) &* 0xC2B2_AE3D_27D4_EB4F
        return locks[Int(truncatingIfNeeded: mixed >> 58)]
    }
}
