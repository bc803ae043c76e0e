@testable import Pathbase
import PathbaseTestSupport
import Testing

@Suite("Codable collections: the bases kept for merging saves")
struct FieldSnapshotCacheTests {

    /// A snapshot naming the instance it was kept for.
    private func snapshot(of instance: InstanceKey) -> FieldSnapshot {
        var fields = FieldSnapshot(in: FieldSnapshotStorage())
        fields.record(instance, for: 1)
        return fields
    }

    private func kept(_ cache: FieldSnapshotCache, _ instance: InstanceKey) -> InstanceKey? {
        cache.base(for: instance, at: nil)?[1] as? InstanceKey
    }

    @Test("Without a larger fetch, at least the last `limit` bases are kept; the oldest go")
    func keepsTheLatestLimit() {
        let cache = FieldSnapshotCache(minimumLimit: 16)
        for instance in 0 ..< 40 { cache.remember([(instance, snapshot(of: instance))], seenAt: nil) }
        for instance in 24 ..< 40 { #expect(kept(cache, instance) == instance) }
        #expect(kept(cache, 0) == nil)
    }

    @Test("A fetch larger than the limit keeps the base of each of its structs")
    func growsToTheLargestFetch() {
        let cache = FieldSnapshotCache(minimumLimit: 16)
        for instance in 0 ..< 10 { cache.remember([(instance, snapshot(of: instance))], seenAt: nil) }
        cache.expect(100)
        for instance in 1000 ..< 1100 { cache.remember([(instance, snapshot(of: instance))], seenAt: nil) }
        for instance in 1000 ..< 1100 { #expect(kept(cache, instance) == instance) }
    }

    @Test("A newer base replaces an older one; a forgotten one is gone from both generations")
    func newerWinsAndForgetRemoves() {
        let cache = FieldSnapshotCache(minimumLimit: 4)
        cache.remember([(7, snapshot(of: 1))], seenAt: nil)
        for instance in 100 ..< 104 { cache.remember([(instance, snapshot(of: instance))], seenAt: nil) }
        // 7 is in the older generation now; its new base goes to the newer one.
        cache.remember([(7, snapshot(of: 2))], seenAt: nil)
        #expect(kept(cache, 7) == 2)
        cache.forget(7)
        #expect(cache.base(for: 7, at: nil) == nil)
    }

    @Test("Structs remembered together keep one base each, past the limit; a key recorded twice reads as its last value")
    func rememberedTogether() {
        let cache = FieldSnapshotCache(minimumLimit: 8)
        cache.remember((0 ..< 12).map { ($0, snapshot(of: $0)) }, seenAt: nil)
        // The newer generation turned over inside the batch: its first structs are the older one.
        for instance in 0 ..< 12 { #expect(kept(cache, instance) == instance) }
        var twice = snapshot(of: 1)
        twice.record(2, for: 1)
        #expect(twice[1] as? InstanceKey == 2)
    }

    @Test("A base seen while writes could be taken back holds until the database takes writes back; a committed one stays")
    func tentativeBases() {
        let cache = FieldSnapshotCache()
        let inTransaction = RollbackMark(mayRollBack: true, rollbacks: 3)
        cache.remember([(1, snapshot(of: 1))], seenAt: inTransaction)
        cache.remember([(2, snapshot(of: 2))], seenAt: RollbackMark(mayRollBack: false, rollbacks: 3))
        #expect(cache.base(for: 1, at: RollbackMark(mayRollBack: false, rollbacks: 3))?[1] as? InstanceKey == 1)
        let afterRollback = RollbackMark(mayRollBack: false, rollbacks: 4)
        #expect(cache.base(for: 1, at: afterRollback) == nil)
        // Dropped, not only hidden: the count matching again does not bring it back.
        #expect(cache.base(for: 1, at: inTransaction) == nil)
        #expect(cache.base(for: 2, at: afterRollback)?[1] as? InstanceKey == 2)
    }

    @Test("Threads remembering, reading, forgetting and growing while generations turn over")
    func severalThreads() async {
        let cache = FieldSnapshotCache(minimumLimit: 32)
        let wrong = Locked(0)
        let finished = await TestThread.run(count: 4) { thread in
            var misread = 0
            for step in 0 ..< 5_000 {
                let instance = thread * 100_000 + step % 200
                cache.remember([(instance, snapshot(of: instance))], seenAt: nil)
                if let read = kept(cache, instance), read != instance { misread += 1 }
                if step % 97 == 0 { cache.forget(instance) }
                if step % 1_000 == 0 { cache.expect(32 + step / 100) }
            }
            wrong.withLock { $0 += misread }
        }
        #expect(finished)
        #expect(wrong.withLock { $0 } == 0)
    }

    @Test("Snapshots sharing one storage keep their own fields, also when they record in turns")
    func sharedStorage() {
        let storage = FieldSnapshotStorage()
        var first = FieldSnapshot(in: storage)
        first.record(1, for: 10)
        var second = FieldSnapshot(in: storage)
        second.record("two", for: 10)
        // The first records again after the second began: its fields stay its own.
        first.record(3, for: 20)
        first.record(4, for: 10)
        second.record(5, for: 20)
        #expect(first[10] as? Int == 4)
        #expect(first[20] as? Int == 3)
        #expect(second[10] as? String == "two")
        #expect(second[20] as? Int == 5)
        #expect(FieldSnapshot(in: storage)[10] == nil)
    }
}
