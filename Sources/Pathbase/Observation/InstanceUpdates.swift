/// The lock of a live result (``LiveQuery``, ``LiveCollection``) and the order of its
/// updates, so that two threads updating the same instance at once never leave it showing
/// the older state.
///
/// A live result updates itself on the writing thread, after the write: it reads the
/// instance, then changes its results under its lock. It must read outside that lock (a
/// writer in a batch may hold the database's lock and wait for the result's), so two
/// updates of one instance can read in one order and reach the lock in the other. The
/// update that began last read after both writes; an update that reaches the lock after a
/// later-begun one was settled read an older state, and changes nothing.
final class InstanceUpdates: @unchecked Sendable {
    // @unchecked: `issued` and `running` are guarded by `lock`.

    /// Guards the live result's state as well as the order.
    let lock = Lock()
    /// The last ticket given.
    private var issued = 0
    /// The instances with updates under way: how many, and the newest settled ticket.
    private var running: [InstanceKey: (count: Int, settled: Int)] = [:]

    /// Updates the results for a write of `instance`; whether they changed.
    ///
    /// - Parameters:
    ///   - read: reads the instance, without the lock.
    ///   - needsChange: with the lock held, whether what was read changes the results.
    ///   - announcing: runs its argument between the observers' will- and did-change (without
    ///     the lock: observers may read the results).
    ///   - change: with the lock held, changes the results to what was read.
    @discardableResult
    func update<Read>(
        of instance: InstanceKey,
        read: () -> Read,
        needsChange: (Read) -> Bool,
        announcing: (() -> Void) -> Void,
        change: (Read) -> Void
    ) -> Bool {
        let ticket = lock.withLock { begin(instance) }
        let state = read()
        let needed = lock.withLock {
            let outdated = isOutdated(ticket, of: instance)
            guard !outdated, needsChange(state) else {
                end(ticket, of: instance, settled: !outdated)
                return false
            }
            return true
        }
        guard needed else { return false }
        var changed = false
        // `announcing` calls its argument before it returns: nothing escapes.
        withoutActuallyEscaping(change) { change in
            announcing {
                lock.withLock {
                    // A later update may have been settled while the observers were told.
                    changed = !isOutdated(ticket, of: instance)
                    if changed { change(state) }
                    end(ticket, of: instance, settled: changed)
                }
            }
        }
        return changed
    }

    // MARK: Order (lock held)

    private func begin(_ instance: InstanceKey) -> Int {
        issued += 1
        running[instance, default: (0, 0)].count += 1
        return issued
    }

    /// Whether an update of `instance` that began after `ticket` has been settled.
    private func isOutdated(_ ticket: Int, of instance: InstanceKey) -> Bool {
        (running[instance]?.settled ?? 0) > ticket
    }

    /// The update of `ticket` is over. `settled`: it changed the results or found that
    /// nothing needed to change, so updates that began before it are outdated.
    private func end(_ ticket: Int, of instance: InstanceKey, settled: Bool) {
        guard var entry = running[instance] else { return }
        entry.count -= 1
        if settled { entry.settled = max(entry.settled, ticket) }
        // With no update under way, no ticket can be outdated: forget the instance.
        running[instance] = entry.count > 0 ? entry : nil
    }
}
