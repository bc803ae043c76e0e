import Pathbase
import Testing

// Model ids 1200–1249 (raw paths only).

/// The three requirements every database fulfils, called directly with paths.
@Suite("Database requirements: get, set and all by path")
struct DatabaseContractTests {

    private let model: ModelKey = 1200

    @Test("get returns nil for a path that holds nothing", arguments: DatabaseKind.allCases)
    func missingValue(kind: DatabaseKind) {
        let database = kind.make()
        let value: Int? = database.get(Path(model: model, instance: 1, property: 1))
        #expect(value == nil)
        database.set(5, for: Path(model: model, instance: 1, property: 2))
        let neighbour: Int? = database.get(Path(model: model, instance: 1, property: 1))
        #expect(neighbour == nil)
    }

    @Test("get of an Optional type returns nil (not .some(nil)) for a path that holds nothing", arguments: DatabaseKind.allCases)
    func missingOptionalValue(kind: DatabaseKind) {
        let database = kind.make()
        let value: Int?? = database.get(Path(model: model, instance: 1, property: 1))
        withKnownIssue("The documented MinimalDatabase casts a missing `Any?` to `Int??` as .some(nil)") {
            #expect(value == .none)
        } when: {
            kind.backend == .minimal
        }
    }

    @Test("get of an Optional type returns .some(nil) for a stored nil", arguments: DatabaseKind.allCases)
    func storedNil(kind: DatabaseKind) {
        let database = kind.make()
        let path = Path(model: model, instance: 1, property: 1)
        database.set(Int?.none, for: path)
        let value: Int?? = database.get(path)
        #expect(value == .some(.none))
    }

    @Test("set replaces the value; get returns the newest", arguments: DatabaseKind.allCases)
    func setReplaces(kind: DatabaseKind) {
        let database = kind.make()
        let path = Path(model: model, instance: 1, property: 1)
        for value in ["a", "b", "c"] {
            database.set(value, for: path)
        }
        let value: String? = database.get(path)
        #expect(value == "c")
    }

    @Test("Values of different types live side by side at different paths", arguments: DatabaseKind.allCases)
    func mixedTypes(kind: DatabaseKind) {
        let database = kind.make()
        let a = Path(model: model, instance: 1, property: 1)
        let b = Path(model: model, instance: 2, property: 1)
        let c = Path(model: model, instance: 1, property: 2)
        database.set(1, for: a)
        database.set("two", for: b)
        database.set([3.0], for: c)
        let first: Int? = database.get(a)
        let second: String? = database.get(b)
        let third: [Double]? = database.get(c)
        let wrongType: String? = database.get(a)
        #expect(first == 1)
        #expect(second == "two")
        #expect(third == [3.0])
        #expect(wrongType == nil)
    }

    @Test("all(model:where:) calls the predicate with every stored status of the model only", arguments: DatabaseKind.allCases)
    func allStatuses(kind: DatabaseKind) {
        let database = kind.make()
        database.set(InstanceStatus.created, for: .status(model: model, instance: 1))
        database.set(InstanceStatus.deleted, for: .status(model: model, instance: 2))
        database.set(InstanceStatus.created, for: .status(model: model + 1, instance: 3))
        database.set("not a status", for: Path(model: model, instance: 4, property: 1))

        let pairs = database.all(model: model) { ($0, $1) }
        #expect(Dictionary(uniqueKeysWithValues: pairs) == [1: .created, 2: .deleted])
        let created = database.all(model: model) { $1 == .created ? $0 : nil }
        #expect(created == [1])
        #expect(database.all(model: model + 2) { instance, _ in instance }.isEmpty)
    }
}
