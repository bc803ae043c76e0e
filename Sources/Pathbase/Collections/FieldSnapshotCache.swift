/// The fields of the structs a collection fetched or saved, by instance: the base that
/// `save` compares a struct with, so that only the fields changed since are written and a
/// field another replica changed meanwhile is not overwritten by a stale copy.
///
/// Bounded, in two generations: when the newer one holds ``limit`` structs it becomes the
/// older one (the oldest are dropped). The limit is at least ``minimumLimit`` and grows to
/// the largest number of structs one fetch or save handled, so every struct of the latest
/// fetch keeps its base however large it was (the app holds that many structs anyway).
/// A struct without a base is compared with what is stored.
///
/// A base seen while the database could still take writes back (inside a transaction, see
/// ``RollbackMark``) is tentative: it holds only while the database has taken nothing back
/// since.
final class FieldSnapshotCache: Sendable {

    static let minimumLimit = 10_000

    private struct Entry {
        let fields: FieldSnapshot
        /// For a tentative base, the database's rollback count when it was seen.
        let tentativeAt: UInt64?
    }

    private struct Generations {
        var newer: [InstanceKey: Entry] = [:]
        var older: [InstanceKey: Entry] = [:]
        var limit: Int
    }

    // `Locked` skips dynamic exclusivity checks, which cost a fifth of remembering a
    // fetch's structs.
    private let state: Locked<Generations>

    /// `minimumLimit` other than the default is for tests that make generations turn over.
    init(minimumLimit: Int = FieldSnapshotCache.minimumLimit) {
        state = Locked(Generations(limit: max(1, minimumLimit)))
    }

    /// The base of a struct, if one is kept and holds at `mark` (the database's now).
    func base(for instance: InstanceKey, at mark: RollbackMark?) -> FieldSnapshot? {
        state.withLock { state in
            guard let entry = state.newer[instance] ?? state.older[instance] else { return nil }
            if let seenAt = entry.tentativeAt, seenAt != mark?.rollbacks {
                // Writes were taken back since: the base may never have been stored.
                state.newer.removeValue(forKey: instance)
                state.older.removeValue(forKey: instance)
                return nil
            }
            return entry.fields
        }
    }

    /// Makes room for the bases of `count` structs about to be fetched or saved together.
    func expect(_ count: Int) {
        state.withLock { $0.limit = max($0.limit, count) }
    }

    /// Keeps the fields of structs seen together at `mark`, under one lock: tentative if
    /// writes could still be taken back then.
    func remember(_ structs: [(instance: InstanceKey, fields: FieldSnapshot)], seenAt mark: RollbackMark?) {
        let tentativeAt = mark.flatMap { $0.mayRollBack ? $0.rollbacks : nil }
        // Dropped outside the lock: destroying many snapshots takes a while.
        var dropped: [[InstanceKey: Entry]] = []
        state.withLock { state in
            for (instance, fields) in structs {
                if state.newer.count >= state.limit {
                    dropped.append(state.older)
                    state.older = state.newer
                    // It fills up again (the app fetches this many): room for all at once,
                    // rather than growing by doubling under the lock of every fetch.
                    state.newer = Dictionary(minimumCapacity: state.limit)
                }
                state.newer[instance] = Entry(fields: fields, tentativeAt: tentativeAt)
            }
        }
        _ = dropped
    }

    func forget(_ instance: InstanceKey) {
        state.withLock { state in
            state.newer.removeValue(forKey: instance)
            state.older.removeValue(forKey: instance)
        }
    }
}
