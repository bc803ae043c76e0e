import Pathbase
import Testing

/// Issue 60: when a file learns that another file wrote under its replica id, the merge
/// states it changed since the server last answered it move to a new id, so the two files'
/// contributions and additions are never taken for one writer's.
@Suite("Merge states moved to a new replica id")
struct MergeStateRehomingTests {

    @Test("a counter's contributions since the acknowledged state move to the new id, and the join with the other file's adds both")
    func counter() {
        let old: UInt32 = 7
        let new: UInt32 = 8
        let acknowledged = CounterValue().adding(5, by: old)
        let mine = acknowledged.adding(3, by: old).adding(-1, by: old)
        let theirs = acknowledged.adding(4, by: old)
        let moved = mine.rehomed(from: old, to: new, since: acknowledged)
        #expect(moved.value == mine.value, "the local value does not change")
        #expect(moved.contributions[old] == acknowledged.contributions[old])
        #expect(moved.merged(with: theirs).value == 5 + 3 - 1 + 4)
        #expect(theirs.merged(with: moved).value == 5 + 3 - 1 + 4)
        // Without moving, the join takes the larger total of the one id: an increment lost.
        #expect(mine.merged(with: theirs).value != 5 + 3 - 1 + 4)
    }

    @Test("a set's additions since the acknowledged state get dots of the new id, so neither file's addition hides the other's")
    func union() {
        let old: UInt32 = 7
        let new: UInt32 = 8
        let acknowledged = UnionValue<String>().inserting("shared", by: old)
        let mine = acknowledged.inserting("mine", by: old)
        let theirs = acknowledged.inserting("theirs", by: old)
        let moved = mine.rehomed(from: old, to: new, since: acknowledged)
        #expect(moved.elements == mine.elements)
        #expect(Set(moved.merged(with: theirs).elements) == ["shared", "mine", "theirs"])
        #expect(Set(theirs.merged(with: moved).elements) == ["shared", "mine", "theirs"])
        // Without moving, both files issued the dot (7, 2): each join drops the other's element.
        #expect(Set(mine.merged(with: theirs).elements) != ["shared", "mine", "theirs"])
        // A removal made before the move stays a removal.
        let removed = mine.removing("shared").rehomed(from: old, to: new, since: acknowledged)
        #expect(Set(removed.merged(with: acknowledged).elements) == ["mine"])
    }

    @Test("a state without replica ids, or one the old id did not change, stays as it is")
    func unchanged() {
        let maximum = MaximumValue(3)
        #expect(maximum.rehomed(from: 1, to: 2, since: nil) == maximum)
        let counter = CounterValue().adding(2, by: 5)
        #expect(counter.rehomed(from: 1, to: 2, since: nil) == counter)
    }

    @Test("a counter's totals stop at the ends of Int, so every order of joins reads the same value")
    func counterAtTheEnds() {
        let states = [
            CounterValue().adding(.max, by: 1), CounterValue().adding(.max, by: 1).adding(-.max, by: 1).adding(1, by: 1),
            CounterValue().adding(.min, by: 2), CounterValue().adding(5, by: 3)
        ]
        let forward = states.reduce(CounterValue()) { $0.merged(with: $1) }
        let backward = states.reversed().reduce(CounterValue()) { $0.merged(with: $1) }
        #expect(forward == backward)
        #expect(forward.value == backward.value)
        // Totals never wrap below what they were.
        let full = CounterValue().adding(.max, by: 1).adding(1, by: 1)
        #expect(full.contributions[1]?.increments == .max)
        #expect(full.value == .max)
    }

    @Test("a clock made without an id takes a new one and keeps the old as earlier; one made with an id keeps it")
    func clockIdentity() {
        let following = HybridLogicalClock()
        following.adoptIdentity(42)
        #expect(following.takeNewIdentity(43))
        #expect(following.replica == 43)
        #expect(following.earlierReplicas == [42])
        #expect(following.now().replica == 43)
        let fixed = HybridLogicalClock(replica: 9)
        #expect(!fixed.takeNewIdentity(10))
        #expect(fixed.replica == 9)
    }
}
