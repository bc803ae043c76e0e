/// Keeps a ``CachedDatabase``'s cache from showing a value its wrapped database no longer
/// holds, without holding a lock while the wrapped database works.
///
/// A read that missed and a write each take a ticket before calling the wrapped database
/// and update the cache with it after. A lock held across that call would deadlock: a batch
/// holds the wrapped database's own lock and reads through the cache, while another thread
/// holding the cache's lock waits for the wrapped database. Instead, every write bumps a
/// version of its path's stripe when it starts and when it ends, and every batch bumps an
/// epoch when it starts and ends. A cache update is allowed only when nothing it could race
/// with happened meanwhile: a read stores what it read only if no write of its stripe started
/// or ended and no batch ran during the read; a write stores its value only if no other write
/// of its stripe overlapped it and no batch ran, and drops the cached value otherwise. Of two
/// overlapping writes the one ending last sees the other and drops the value, so the cache is
/// never left holding the older one; dropping is always safe, as the next read fetches.
final class CacheCoherence: @unchecked Sendable {
    // @unchecked: every mutable property is touched only while holding `lock`.

    private static let stripeCount = 64

    // Guarded by `lock`, which is never held while the wrapped database runs.
    private let lock = Lock()
    private var versions = [UInt64](repeating: 0, count: CacheCoherence.stripeCount)
    private var runningBatches = 0
    private var batchEpoch: UInt64 = 0

    /// What a read or a write saw when it started.
    struct Ticket {
        fileprivate let stripe: Int
        fileprivate let version: UInt64
        fileprivate let batchEpoch: UInt64
        fileprivate let batchWasRunning: Bool
    }

    /// A batch starts: until the last one ends, nothing is cached.
    func batchBegan() {
        lock.withLock {
            runningBatches += 1
            batchEpoch &+= 1
        }
    }

    func batchEnded() {
        lock.withLock {
            runningBatches -= 1
            batchEpoch &+= 1
        }
    }

    /// Before reading a missed path from the wrapped database.
    func readBegins(_ path: Path) -> Ticket {
        let stripe = Self.stripe(of: path)
        return lock.withLock { ticket(stripe) }
    }

    /// After the read: `store` runs (under the lock) if the value read may be cached.
    func readEnded(_ ticket: Ticket, store: () -> Void) {
        lock.withLock {
            if isUndisturbed(ticket) { store() }
        }
    }

    /// Before writing a path to the wrapped database.
    func writeBegins(_ path: Path) -> Ticket {
        let stripe = Self.stripe(of: path)
        return lock.withLock {
            versions[stripe] &+= 1
            return ticket(stripe)
        }
    }

    /// After the write: `update` runs under the lock, told whether the written value may be
    /// cached (else the cached value must be dropped).
    func writeEnded(_ ticket: Ticket, update: (_ mayStore: Bool) -> Void) {
        lock.withLock {
            update(isUndisturbed(ticket))
            versions[ticket.stripe] &+= 1
        }
    }

    private func ticket(_ stripe: Int) -> Ticket {
        Ticket(stripe: stripe, version: versions[stripe], batchEpoch: batchEpoch, batchWasRunning: runningBatches > 0)
    }

    private func isUndisturbed(_ ticket: Ticket) -> Bool {
        !ticket.batchWasRunning && runningBatches == 0 && batchEpoch == ticket.batchEpoch
            && versions[ticket.stripe] == ticket.version
    }

    @inline(__always)
    private static func stripe(of path: Path) -> Int {
        var mixed = UInt64(UInt(bitPattern: path.instance))
        mixed = (mixed ^ UInt64(UInt(bitPattern: path.property)) &* 0x9E37_79B9) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= UInt64(UInt(bitPattern: path.model)) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: mixed >> 58)
    }
}
