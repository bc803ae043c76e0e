/// The fields of the structs a collection fetched or saved, by instance: the base that
/// `save` compares a struct with, so that only the fields changed since are written and a
/// field another replica changed meanwhile is not overwritten by a stale copy.
///
/// Bounded, in two generations: when the newer one holds ``limit`` structs it becomes the
/// older one (the oldest are dropped). The limit is at least ``minimumLimit`` and grows to
/// the largest number of structs one fetch or save handled, so every struct of the latest
/// fetch keeps its base however large it was (the app holds that many structs anyway).
/// A struct without a base is compared with what is stored.
final class FieldSnapshotCache: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.

    static let minimumLimit = 10_000

    private let lock = Lock()
    private var newer: [InstanceKey: FieldSnapshot] = [:]
    private var older: [InstanceKey: FieldSnapshot] = [:]
    private var limit: Int

    /// `minimumLimit` other than the default is for tests that make generations turn over.
    init(minimumLimit: Int = FieldSnapshotCache.minimumLimit) {
        limit = max(1, minimumLimit)
    }

    /// The base of a struct, if one is kept.
    func base(for instance: InstanceKey) -> FieldSnapshot? {
        lock.withLock { newer[instance] ?? older[instance] }
    }

    /// Makes room for the bases of `count` structs about to be fetched or saved together.
    func expect(_ count: Int) {
        lock.withLock { limit = max(limit, count) }
    }

    func remember(_ fields: FieldSnapshot, for instance: InstanceKey) {
        // Dropped outside the lock: destroying many snapshots takes a while.
        let dropped: [InstanceKey: FieldSnapshot]? = lock.withLock {
            var dropped: [InstanceKey: FieldSnapshot]?
            if newer.count >= limit {
                dropped = older
                older = newer
                newer = [:]
            }
            newer[instance] = fields
            return dropped
        }
        _ = dropped
    }

    func forget(_ instance: InstanceKey) {
        lock.withLock {
            newer.removeValue(forKey: instance)
            older.removeValue(forKey: instance)
        }
    }
}
