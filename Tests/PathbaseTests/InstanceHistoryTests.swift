import Foundation
import Pathbase
import Testing

// Model ids 1375–1389.

@Model(id: 1375)
final class Patient {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var age: Int

    @Reference(id: 3)
    var guardian: Patient?
}

@Suite("Per-instance history")
struct InstanceHistoryTests {

    @Test("history(of:as:) lists a property's values oldest first, with their timestamps", arguments: HistoryDatabaseKind.allCases)
    func typedPropertyHistory(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let patient: Patient = database.create(id: 1)
        for age in [30, 31, 32] { patient.age = age }
        patient.name = "Kim"

        let history = patient.history(of: .age, as: Int.self)
        #expect(history.map(\.value) == [30, 31, 32])
        #expect(history.map(\.timestamp) == history.map(\.timestamp).sorted())
        #expect(Set(history.map(\.timestamp)).count == 3)
        for entry in history {
            let stored: Timestamped<Int>? = database.get(patient.path(of: .age), at: entry.timestamp)
            #expect(stored == entry)
        }
        // The value type can be inferred.
        let names: [Timestamped<String>] = patient.history(of: .name)
        #expect(names.map(\.value) == ["Kim"])
    }

    @Test("A property never written has no history", arguments: HistoryDatabaseKind.allCases)
    func emptyHistory(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let patient: Patient = database.create(id: 1)
        #expect(patient.history(of: .age, as: Int.self).isEmpty)
        #expect(patient.history(of: .guardian, as: Int.self).isEmpty)
        #expect(Patient(database: database, id: 99).history().isEmpty)
    }

    @Test("Records of another type are skipped", arguments: HistoryDatabaseKind.allCases)
    func otherTypesSkipped(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let patient: Patient = database.create(id: 1)
        patient.age = 40
        database.set("forty-one", for: patient.path(of: .age))
        patient.age = 42
        #expect(patient.history(of: .age, as: Int.self).map(\.value) == [40, 42])
        #expect(patient.history(of: .age, as: String.self).map(\.value) == ["forty-one"])
        #expect(patient.age == 42)
    }

    @Test("history() lists every record of the instance, status included, oldest first", arguments: HistoryDatabaseKind.allCases)
    func wholeInstanceHistory(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let patient: Patient = database.create(id: 1)
        let other: Patient = database.create(id: 2)
        patient.name = "Ana"
        other.name = "Not included"
        patient.age = 7
        patient.guardian = other
        patient.delete()
        patient.insert()
        patient.age = 8

        let records = patient.history()
        #expect(records.map(\.path.property) == [0, 1, 2, 3, 0, 0, 2])
        #expect(records.allSatisfy { $0.path.model == Patient.modelId && $0.path.instance == 1 })
        #expect(records.map(\.timestamp) == records.map(\.timestamp).sorted())
        #expect(records.compactMap { $0.value as? InstanceStatus } == [.created, .deleted, .created])
        #expect(records.compactMap { $0.value as? Int }.suffix(1) == [8])
        #expect(other.history().count == 2)
    }

    @Test("A committed context's edits all appear in the instance history, in order", arguments: HistoryDatabaseKind.allCases)
    func historyOfContextEdits(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let context = database.createEditingContext()
        let patient: Patient = context.create(id: 1)
        patient.age = 1
        patient.age = 2
        // Before the commit the database has no history of it.
        #expect(patient.history(of: .age, as: Int.self).isEmpty)
        context.commitChanges()
        #expect(patient.history(of: .age, as: Int.self).map(\.value) == [1, 2])
        #expect(database.get(id: 1, of: Patient.self)?.history().count == 3)
    }

    @Test("In a history view, the history ends at the view's moment", arguments: HistoryDatabaseKind.allCases)
    func historyInView(kind: HistoryDatabaseKind) {
        let database = kind.make()
        let patient = Patient.create(in: database, id: 1, age: 1)
        patient.age = 2
        let moment = database.clock.now()
        patient.age = 3
        let old = database.view(at: moment).get(id: 1, of: Patient.self)!
        #expect(old.history(of: .age, as: Int.self).map(\.value) == [1, 2])
        #expect(old.history().allSatisfy { $0.timestamp <= moment })
        #expect(patient.history(of: .age, as: Int.self).map(\.value) == [1, 2, 3])
    }

    @Test("Undo and redo show up in the history as new records")
    func historyWithUndo() {
        let database = UndoableDatabase(wrapping: InMemoryHistoryDatabase())
        let patient: Patient = database.create(id: 1)
        patient.age = 10
        patient.age = 11
        database.undo()
        database.redo()
        #expect(patient.history(of: .age, as: Int.self).map(\.value) == [10, 11, 10, 11])
        database.undo()
        database.undo()
        // Undoing the first set writes "no value": the typed history skips it.
        #expect(patient.history(of: .age, as: Int.self).map(\.value) == [10, 11, 10, 11, 10])
        #expect(patient.history().last?.value is NoValue)
        #expect(patient.age == 0)
    }

    @Test("An instance in a database without history has no history", arguments: [DatabaseKind.inMemory, .minimal])
    func noHistoryDatabase(kind: DatabaseKind) {
        let database = kind.make()
        let patient = Patient.create(in: database, id: 1, age: 5)
        patient.age = 6
        #expect(patient.history(of: .age, as: Int.self).isEmpty)
        #expect(patient.history().isEmpty)
    }
}
