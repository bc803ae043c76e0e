import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

// Raw paths of model 1338 (the EditingContext range 1320–1339).

/// `commitChanges()` and `discardChanges()` called at the same moment from two threads.
@Suite("EditingContext: commit racing discard")
struct EditingContextRaceTests {

    private static let paths = (1 ... 100).map { Path(model: 1338, instance: 1, property: $0) }
    private static let rounds = 1000

    /// What one round left behind, checked after both threads finished it.
    private struct RoundOutcome: Sendable {
        let round: Int
        let values: [Int?]
        let pendingAfterwards: Bool
    }

    @Test("Each round of edit, then commit and discard at once, ends all-or-nothing and never traps")
    func commitRacesDiscard() async {
        let database = InMemoryHistoryDatabase()
        let context = database.createEditingContext()
        let start = ThreadBarrier(parties: 2)
        let end = ThreadBarrier(parties: 2)
        let outcomes = LockedList<RoundOutcome>()
        let failures = LockedList<String>()

        let committer = TestThread {
            for round in 1 ... Self.rounds {
                for path in Self.paths { context.set(round, for: path) }
                guard start.arriveAndWait() else { return failures.append("round \(round): the discarding thread did not arrive") }
                context.commitChanges()
                guard end.arriveAndWait() else { return failures.append("round \(round): the discarding thread did not finish") }
                outcomes.append(
                    RoundOutcome(
                        round: round,
                        values: Self.paths.map { database.get($0) as Int? },
                        pendingAfterwards: context.hasChanges
                    ))
            }
        }
        let seed = UInt64.random(in: 0 ... UInt64.max)
        print("EditingContext race: seed \(seed)")
        let discarder = TestThread {
            // Discards at a random moment of the commit (which takes a few hundred
            // microseconds for 100 edits), so that rounds hit every part of it.
            var random = SplitMix64(seed: seed)
            for round in 1 ... Self.rounds {
                let delay = UInt64.random(in: 0 ..< 600_000, using: &random)
                guard start.arriveAndWait() else { return failures.append("round \(round): the committing thread did not arrive") }
                let until = DispatchTime.now().uptimeNanoseconds + delay
                while DispatchTime.now().uptimeNanoseconds < until {}
                context.discardChanges()
                guard end.arriveAndWait() else { return failures.append("round \(round): the committing thread did not finish") }
            }
        }
        #expect(await committer.join())
        #expect(await discarder.join())

        #expect(failures.elements.isEmpty, "\(failures.elements)")
        let results = outcomes.elements
        #expect(results.count == Self.rounds)
        var committedRounds = 0
        var previous: Int?
        for outcome in results {
            // The edits of a round are stored together or not at all.
            #expect(Set(outcome.values).count == 1, "round \(outcome.round) stored a part: \(outcome.values)")
            let stored = outcome.values.first ?? nil
            #expect(stored == previous || stored == outcome.round, "round \(outcome.round) left \(String(describing: stored))")
            if stored == outcome.round { committedRounds += 1 }
            previous = stored
            #expect(!outcome.pendingAfterwards, "round \(outcome.round) left edits pending")
        }
        // Not an outcome the test requires, but shows both orders happened.
        print("EditingContext race: \(committedRounds) of \(Self.rounds) rounds committed, the others discarded")
    }
}

/// A list several threads append to.
final class LockedList<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        stored.append(element)
        lock.unlock()
    }

    var elements: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
