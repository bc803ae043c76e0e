import Pathbase
import Testing

// Model ids 1100–1149.
//
// The documented code samples, compiled and checked: each test follows one snippet of the
// documentation with our own names, using the same API calls.

@Model(id: 1100)
final class Person {
    @Property(id: 1)
    var name: String
}

@Model(id: 1101)
final class Widget {
    @Property(id: 42)
    var value: Int

    @Reference(id: 43)
    var inner: Gadget?

    @ReferenceList(id: 44)
    var innerList: [Gadget]
}

@Model(id: 1102)
final class Gadget {
    @Property(id: 1)
    var value: Int
}

@Suite("Documented examples")
struct SeedExampleTests {

    @Test("Core idea: define a model, create an instance with its properties", arguments: DatabaseKind.allCases)
    func coreIdea(kind: DatabaseKind) {
        let database = kind.make()
        let alice = Person.create(in: database, id: 123, name: "Alice")
        #expect(alice.name == "Alice")
        #expect(database.get(id: 123, of: Person.self)?.name == "Alice")
    }

    @Test("Core idea: the three database functions work on paths", arguments: DatabaseKind.allCases)
    func databaseInterface(kind: DatabaseKind) {
        let database = kind.make()
        let path = Path(model: 1149, instance: 1, property: 2)
        database.set("stored", for: path)
        let value: String? = database.get(path)
        #expect(value == "stored")
        database.set(InstanceStatus.created, for: Path.status(model: 1149, instance: 1))
        database.set(InstanceStatus.deleted, for: Path.status(model: 1149, instance: 2))
        let instances = database.all(model: 1149) { instance, status in
            status == .created ? instance : nil
        }
        #expect(instances == [1])
    }

    @Test("Object creation: create and get by id", arguments: DatabaseKind.allCases)
    func objectCreation(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 123)
        let other: Widget? = database.get(id: 123)
        #expect(other == model)

        let generated = Widget.create(in: database, id: 124, value: 42)
        #expect(generated.value == 42)
    }

    @Test("Properties: use them like any other property", arguments: DatabaseKind.allCases)
    func properties(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 1)
        let other: Widget = database.create(id: 2)
        model.value = 2
        let a = model.value + 3
        model.value += a
        other.value = 2 * model.value
        #expect(a == 5)
        #expect(model.value == 7)
        #expect(other.value == 14)
    }

    @Test("References: assign and write through them", arguments: DatabaseKind.allCases)
    func references(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 1)
        let other = database.create(id: 123, of: Gadget.self)
        model.inner = other
        model.inner!.value = 32
        #expect(other.value == 32)
    }

    @Test("Model status: a deleted model prints \"deleted\", others \"created\"", arguments: DatabaseKind.allCases)
    func modelStatus(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 1)
        #expect("\(model.status)" == "created")
        model.delete()
        #expect("\(model.status)" == "deleted")
    }

    @Test("References to deleted objects report \"deleted\"", arguments: DatabaseKind.allCases)
    func referencesToDeletedObjects(kind: DatabaseKind) {
        let database = kind.make()
        let myObject: Widget = database.create(id: 1)
        let nested: Gadget = database.create(id: 2)
        myObject.inner = nested
        nested.delete()
        #expect("\(myObject.inner!.status)" == "deleted")
    }

    @Test("Deleted list elements report \"deleted\"", arguments: DatabaseKind.allCases)
    func deletedListElements(kind: DatabaseKind) {
        let database = kind.make()
        let main: Widget = database.create(id: 1)
        let some: Gadget = database.create(id: 2)
        main.innerList = [some]
        some.delete()
        #expect("\(main.innerList[0].status)" == "deleted")
    }

    @Test("Restoring objects: insert() brings back the values", arguments: DatabaseKind.allCases)
    func restoring(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 1)
        model.value = 12
        model.delete()
        #expect("\(model.status)" == "deleted")
        model.insert()
        #expect(model.value == 12)
        #expect(model.status == .created)
    }

    @Test("Restoring objects: creating the same id again brings back the values", arguments: DatabaseKind.allCases)
    func recreating(kind: DatabaseKind) {
        let database = kind.make()
        let model: Widget = database.create(id: 1)
        model.value = 12
        model.delete()
        let newModel: Widget = database.create(id: model.id)
        #expect(newModel.value == 12)
    }

    @Test("Restoring objects: deleteAndClearProperties() prevents restoring values", arguments: DatabaseKind.allCases)
    func clearing(kind: DatabaseKind) {
        let database = kind.make()
        let instance: Widget = database.create(id: 1)
        instance.value = 12
        instance.inner = database.create(id: 5, of: Gadget.self)
        instance.deleteAndClearProperties()
        let newInstance: Widget = database.create(id: 1)
        #expect(newInstance.value == 0)
        #expect(newInstance.inner == nil)
        #expect(newInstance.innerList.isEmpty)
    }

    @Test("Custom database: the minimal database handles all kinds of models")
    func customDatabase() {
        let database = MinimalDatabase()
        let widget = Widget.create(in: database, id: 1, value: 3, inner: Gadget.create(in: database, id: 2, value: 4))
        #expect(widget.inner?.value == 4)
        #expect(database.all(of: Widget.self) == [widget])
        #expect(database.all(of: Gadget.self).map(\.id) == [2])
        #expect(database.all(of: Person.self).isEmpty)
    }
}
