import Pathbase
import Testing

// Model ids 200–299.

@Model(id: 200)
final class Chore {
    @Property(id: 1) var title: String
    @Property(id: 2) var estimate: Int = 3
    @Property(id: 3) var notes: String?
    @Reference(id: 4) var parent: Chore?
    @ReferenceList(id: 5) var subtasks: [Chore]
}

@Model(id: 201)
final class Tag {
    @Property(id: 1) var label: String
}

@Suite("Instance lifecycle: create, get, active, getOrCreate, all, delete, insert")
struct InstanceLifecycleTests {

    // MARK: Creating

    @Test("create(id:) marks the instance created", arguments: DatabaseKind.allCases)
    func createByInference(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        #expect(chore.id == 1)
        #expect(chore.status == .created)
        #expect(database.get(id: 1, of: Chore.self) != nil)
        #expect(database.active(id: 1, of: Chore.self) != nil)
    }

    @Test("create(id:of:) names the model type explicitly", arguments: DatabaseKind.allCases)
    func createWithType(kind: DatabaseKind) {
        let database = kind.make()
        let chore = database.create(id: 7, of: Chore.self)
        #expect(chore.id == 7)
        #expect(chore.status == .created)
        let fetched: Chore? = database.get(id: 7)
        #expect(fetched == chore)
    }

    @Test("The status is stored at the reserved property key of the instance", arguments: DatabaseKind.allCases)
    func statusPath(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 4)
        let stored: InstanceStatus? = database.get(Path.status(model: Chore.modelId, instance: 4))
        #expect(stored == .created)
        #expect(chore.path(of: PropertyKey.instanceId) == Path(model: 200, instance: 4, property: 0))
        #expect(Path.status(model: 200, instance: 4).isStatus)
    }

    @Test("Creating an existing instance again keeps its values", arguments: DatabaseKind.allCases)
    func createTwiceKeepsValues(kind: DatabaseKind) {
        let database = kind.make()
        let first: Chore = database.create(id: 1)
        first.title = "Write tests"
        let second: Chore = database.create(id: 1)
        #expect(second.title == "Write tests")
        #expect(database.all(of: Chore.self).count == 1)
    }

    // MARK: Fetching

    @Test("get(id:) and active(id:) return nil for an id that was never created", arguments: DatabaseKind.allCases)
    func getMissing(kind: DatabaseKind) {
        let database = kind.make()
        let _: Chore = database.create(id: 1)
        let missing: Chore? = database.get(id: 2)
        let inactive: Chore? = database.active(id: 2)
        #expect(missing == nil)
        #expect(inactive == nil)
    }

    @Test("get(id:) returns a deleted instance, active(id:) does not", arguments: DatabaseKind.allCases)
    func getDeleted(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        chore.title = "Old"
        chore.delete()
        let fetched: Chore? = database.get(id: 1)
        #expect(fetched?.status == .deleted)
        #expect(fetched?.title == "Old")
        #expect(database.active(id: 1, of: Chore.self) == nil)
    }

    @Test("Instance ids are per model: another model's instance with the same id is separate", arguments: DatabaseKind.allCases)
    func idsArePerModel(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        chore.title = "Chore one"
        #expect(database.get(id: 1, of: Tag.self) == nil)
        let tag: Tag = database.create(id: 1)
        tag.label = "Tag one"
        #expect(chore.title == "Chore one")
        #expect(tag.label == "Tag one")
        #expect(database.all(of: Tag.self).map(\.id) == [1])
    }

    // MARK: getOrCreate

    @Test("getOrCreate(id:) creates a missing instance", arguments: DatabaseKind.allCases)
    func getOrCreateMissing(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.getOrCreate(id: 3)
        #expect(chore.status == .created)
        #expect(database.all(of: Chore.self).map(\.id) == [3])
    }

    @Test("getOrCreate(id:) returns an existing instance with its values", arguments: DatabaseKind.allCases)
    func getOrCreateExisting(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 3)
        chore.title = "Existing"
        chore.estimate = 8
        let again = database.getOrCreate(id: 3, of: Chore.self)
        #expect(again == chore)
        #expect(again.title == "Existing")
        #expect(again.estimate == 8)
        #expect(database.all(of: Chore.self).count == 1)
    }

    @Test("getOrCreate(id:) restores a deleted instance with its values", arguments: DatabaseKind.allCases)
    func getOrCreateDeleted(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 3)
        chore.title = "Deleted once"
        chore.delete()
        let restored: Chore = database.getOrCreate(id: 3)
        #expect(restored.status == .created)
        #expect(restored.title == "Deleted once")
    }

    // MARK: Listing

    @Test("all(of:) lists exactly the created instances of the model", arguments: DatabaseKind.allCases)
    func allOf(kind: DatabaseKind) {
        let database = kind.make()
        #expect(database.all(of: Chore.self).isEmpty)
        for id in 1 ... 5 {
            let _: Chore = database.create(id: id)
        }
        let _: Tag = database.create(id: 100)
        database.get(id: 2, of: Chore.self)?.delete()
        database.delete(database.create(id: 4, of: Chore.self))

        let chores: [Chore] = database.all()
        #expect(Set(chores.map(\.id)) == [1, 3, 5])
        #expect(chores.allSatisfy { $0.status == .created })
        #expect(database.all(of: Tag.self).map(\.id) == [100])
    }

    @Test("all(_:where:) filters active instances with a closure", arguments: DatabaseKind.allCases)
    func allWhere(kind: DatabaseKind) {
        let database = kind.make()
        for id in 1 ... 6 {
            Chore.create(in: database, id: id, title: "Chore \(id)", estimate: id, notes: nil)
        }
        database.get(id: 6, of: Chore.self)?.delete()

        let large = database.all(Chore.self) { $0.estimate >= 4 }
        #expect(Set(large.map(\.id)) == [4, 5])
        let none = database.all(Chore.self) { _ in false }
        #expect(none.isEmpty)
        let named: [Chore] = database.all { $0.title == "Chore 2" }
        #expect(named.map(\.id) == [2])
    }

    // MARK: Deleting and restoring

    @Test("delete() marks deleted and keeps values; insert() restores", arguments: DatabaseKind.allCases)
    func deleteAndInsert(kind: DatabaseKind) {
        let database = kind.make()
        let chore = Chore.create(in: database, id: 1, title: "Keep me", estimate: 12, notes: "n")
        chore.delete()
        #expect(chore.status == .deleted)
        #expect(database.all(of: Chore.self).isEmpty)
        #expect(chore.title == "Keep me")

        chore.insert()
        #expect(chore.status == .created)
        #expect(chore.title == "Keep me")
        #expect(chore.estimate == 12)
        #expect(chore.notes == "n")
        #expect(database.all(of: Chore.self).map(\.id) == [1])
    }

    @Test("database.delete(_:) is the same as model.delete()", arguments: DatabaseKind.allCases)
    func databaseDelete(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        database.delete(chore)
        #expect(chore.status == .deleted)
        #expect(database.active(id: 1, of: Chore.self) == nil)
    }

    @Test("Creating a deleted id again brings back the previous values", arguments: DatabaseKind.allCases)
    func reuseIdKeepsValues(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        chore.title = "Remembered"
        chore.estimate = 12
        chore.delete()
        let reused: Chore = database.create(id: chore.id)
        #expect(reused.status == .created)
        #expect(reused.title == "Remembered")
        #expect(reused.estimate == 12)
    }

    @Test("Storing the status .notCreated reads like never having created the instance", arguments: DatabaseKind.allCases)
    func storingNotCreated(kind: DatabaseKind) {
        let database = kind.make()
        let chore: Chore = database.create(id: 1)
        database.set(InstanceStatus.notCreated, for: Path.status(model: Chore.modelId, instance: 1))
        #expect(chore.status == .notCreated)
        #expect(database.get(id: 1, of: Chore.self) == nil)
        #expect(database.active(id: 1, of: Chore.self) == nil)
        #expect(database.all(of: Chore.self).isEmpty)
        let _: Chore = database.getOrCreate(id: 1)
        #expect(chore.status == .created)
    }

    @Test("deleteAndClearProperties() resets every property to its default and deletes", arguments: DatabaseKind.allCases)
    func deleteAndClear(kind: DatabaseKind) {
        let database = kind.make()
        let parent: Chore = database.create(id: 1)
        let child: Chore = database.create(id: 2)
        child.title = "Child"
        child.estimate = 40
        child.notes = "Some notes"
        child.parent = parent
        child.subtasks = [parent]

        child.deleteAndClearProperties()
        #expect(child.status == .deleted)
        #expect(child.title == "")
        #expect(child.estimate == 3)
        #expect(child.notes == nil)
        #expect(child.parent == nil)
        #expect(child.subtasks.isEmpty)

        let reused: Chore = database.create(id: 2)
        #expect(reused.title == "")
        #expect(reused.estimate == 3)
        #expect(reused.parent == nil)
        // The other instance is untouched.
        #expect(parent.status == .created)
    }
}
