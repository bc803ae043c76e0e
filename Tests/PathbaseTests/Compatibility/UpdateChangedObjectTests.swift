import Foundation
import Observation
import Pathbase
import Testing
#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

@Suite("StateModel compatibility: ObservableDatabase.updateChangedObject")
struct UpdateChangedObjectTests {

    /// Counts `objectWillChange` of a model.
    final class ChangeCounter: @unchecked Sendable {
        private(set) var count = 0
        private var subscription: AnyCancellable?

        init(_ publisher: InstanceWillChangePublisher) {
            subscription = publisher.sink { [weak self] in self?.count += 1 }
        }
    }

    @Test("A write to the base database notifies observers once updateChangedObject is called")
    func notifiesAfterDirectWrite() {
        let base = InMemoryHistoryDatabase()
        let database = ObservableDatabase(wrapping: base)
        let ticket = Ticket.create(in: database, id: 1, title: "Open")
        let counter = ChangeCounter(ticket.objectWillChange)

        // Written past the observable database, as synchronization code may do:
        base.set("Closed", for: Path(model: Ticket.modelId, instance: 1, property: Ticket.PropertyId.title))
        #expect(counter.count == 0)

        database.updateChangedObject(model: Ticket.modelId, instance: 1)
        #expect(counter.count > 0)
        #expect(ticket.title == "Closed")
    }

    @Test("withObservationTracking sees the property read before the direct write")
    func observationTracking() {
        let base = InMemoryHistoryDatabase()
        let database = ObservableDatabase(wrapping: base)
        let ticket = Ticket.create(in: database, id: 2, title: "Open")
        let changed = LockedFlag()
        withObservationTracking {
            _ = ticket.estimate
        } onChange: {
            changed.set()
        }
        base.set(5, for: ticket.path(of: .estimate))
        #expect(!changed.value)
        database.updateChangedObject(model: Ticket.modelId, instance: 2)
        #expect(changed.value)
        #expect(ticket.estimate == 5)
    }

    @Test("Other instances are not notified")
    func onlyThatInstance() {
        let database = ObservableDatabase(wrapping: InMemoryHistoryDatabase())
        let first = Ticket.create(in: database, id: 3, title: "A")
        let second = Ticket.create(in: database, id: 4, title: "B")
        let firstCounter = ChangeCounter(first.objectWillChange)
        let secondCounter = ChangeCounter(second.objectWillChange)
        database.updateChangedObject(model: Ticket.modelId, instance: 3)
        #expect(firstCounter.count > 0)
        #expect(secondCounter.count == 0)
    }
}

/// A flag set from an observation callback.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
