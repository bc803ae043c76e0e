import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: data survives closing and reopening")
struct PersistenceTests {

    @Test("Every kind of value reads back after reopening")
    func valuesSurviveReopen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let birthday = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        do {
            let database = try SQLiteDatabase(path: path)
            let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
            let bob = Person.create(in: database, id: 2, name: "Bob")
            let carol = Person.create(in: database, id: 3, name: "Carol")
            alice.address = Address(street: "Main Street", number: 1)
            alice.nickname = "Al"
            bob.nickname = nil
            alice.isAdmin = true
            alice.avatar = Data([0, 1, 2, 255])
            bob.avatar = Data()
            alice.score = 0.1
            alice.partner = bob
            alice.friends = [bob, carol]
            alice.tags = ["a", "b"]
            alice.priority = .high
            alice.birthday = birthday
            carol.delete()
            database.close()
        }
        let database = try SQLiteDatabase(path: path)
        let alice = try #require(database.get(id: 1, of: Person.self))
        #expect(alice.name == "Alice")
        #expect(alice.age == 30)
        #expect(alice.address == Address(street: "Main Street", number: 1))
        #expect(alice.nickname == "Al")
        #expect(alice.isAdmin)
        #expect(alice.avatar == Data([0, 1, 2, 255]))
        #expect(alice.score == 0.1)
        #expect(alice.partner?.name == "Bob")
        #expect(alice.friends.map(\.id) == [2, 3])
        #expect(alice.friends.map(\.status) == [.created, .deleted])
        #expect(alice.tags == ["a", "b"])
        #expect(alice.priority == .high)
        #expect(alice.birthday == birthday)

        let bob = try #require(database.get(id: 2, of: Person.self))
        #expect(bob.age == 0)
        #expect(bob.avatar == Data())
        #expect(bob.partner == nil)
        #expect(database.all(of: Person.self).map(\.id).sorted() == [1, 2])
        #expect(database.get(id: 3, of: Person.self)?.status == .deleted)
    }

    @Test("A stored nil and no value stay different after reopening")
    func storedNilVersusNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let stored = Path(model: 5, instance: 1, property: 1)
        let empty = Path(model: 5, instance: 1, property: 2)
        do {
            let database = try SQLiteDatabase(path: path)
            database.set(String?.none, for: stored)
        }
        let database = try SQLiteDatabase(path: path)
        let storedValue: String?? = database.get(stored)
        let emptyValue: String?? = database.get(empty)
        #expect(storedValue == .some(nil))
        #expect(emptyValue == nil)
    }

    @Test("Native values read back as the exact type that wrote them")
    func exactTypes() throws {
        let database = try SQLiteDatabase()
        let path = Path(model: 5, instance: 1, property: 1)
        database.set(true, for: path)
        #expect(database.get(path) as Bool? == true)
        #expect(database.get(path) as Int? == nil)

        database.set(1, for: path)
        #expect(database.get(path) as Int? == 1)
        #expect(database.get(path) as Bool? == nil)
        #expect(database.get(path) as Int64? == nil)
        #expect(database.get(path) as Int?? == .some(1))

        database.set(UInt64.max, for: path)
        #expect(database.get(path) as UInt64? == .max)
        database.set(Int8.min, for: path)
        #expect(database.get(path) as Int8? == .min)
        database.set(Float(1.5), for: path)
        #expect(database.get(path) as Float? == 1.5)
        #expect(database.get(path) as Double? == nil)
        database.set(Double.nan, for: path)
        #expect((database.get(path) as Double?)?.isNaN == true)
        database.set(-Double.infinity, for: path)
        #expect(database.get(path) as Double? == -.infinity)
        #expect(database.get(path) as Float? == nil)
        database.set(false, for: path)
        #expect(database.get(path) as Bool? == false)
        #expect(database.get(path) as Bool?? == .some(false))
        database.set("", for: path)
        #expect(database.get(path) as String? == "")
        database.set("a\u{0}b😀", for: path)
        #expect(database.get(path) as String? == "a\u{0}b😀")
        database.set(Data("text".utf8), for: path)
        #expect(database.get(path) as Data? == Data("text".utf8))
        #expect(database.get(path) as String? == nil)
        database.set([1, -2, Int.max], for: path)
        #expect(database.get(path) as [Int]? == [1, -2, Int.max])
        #expect(database.get(path) as Set<Int>? == nil)
        database.set(["x"], for: path)
        #expect(database.get(path) as [String]? == ["x"])
        #expect(database.get(path) as Set<String>? == nil)
        database.set(InstanceStatus.deleted, for: path)
        #expect(database.get(path) as InstanceStatus? == .deleted)
        #expect(database.get(path) as Int? == nil)
    }

    @Test("History records and timestamps survive reopening")
    func historySurvivesReopen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let clock = HybridLogicalClock(replica: 9)
        var timestamps: [Timestamp] = []
        let titlePath = Path(model: Item.modelId, instance: 1, property: 1)
        do {
            let database = try SQLiteDatabase(path: path, options: .init(clock: clock))
            let item = Item.create(in: database, id: 1, title: "one")
            item.title = "two"
            item.title = "three"
            timestamps = database.records(at: titlePath).map(\.timestamp)
        }
        let database = try SQLiteDatabase(path: path, options: .init(clock: HybridLogicalClock(replica: 10)))
        let records = database.records(at: titlePath)
        #expect(records.map(\.timestamp) == timestamps)
        #expect(records.map { $0.value as? String } == ["one", "two", "three"])
        #expect(records.allSatisfy { $0.timestamp.replica == 9 })
        let first: Timestamped<String>? = database.get(titlePath, at: timestamps[0])
        #expect(first?.value == "one")
        // The clock moved past the file's newest record.
        #expect(database.clock.now() > timestamps[2])
    }

    @Test("A new clock whose wall time lags behind the file still writes newer values")
    func clockMovesPastFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let future = Timestamp(time: Int64(Date().timeIntervalSince1970 * 1_000_000) + 3_600_000_000, counter: 0, replica: 1)
        do {
            let database = try SQLiteDatabase(path: path)
            database.set("from the future", for: Path(model: 5, instance: 1, property: 1), timestamp: future)
        }
        let database = try SQLiteDatabase(path: path)
        database.set("now", for: Path(model: 5, instance: 1, property: 1))
        #expect(database.get(Path(model: 5, instance: 1, property: 1)) as String? == "now")
    }

    @Test("Records of a Codable type decode as that type, or as EncodedValue when it is unknown")
    func recordsOfCodableValues() throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let path = Path(model: 5, instance: 1, property: 1)
        do {
            let database = try SQLiteDatabase(path: file)
            database.set(Address(street: "A", number: 1), for: path)
            #expect(database.records(at: path).first?.value as? Address == Address(street: "A", number: 1))
        }
        let database = try SQLiteDatabase(path: file)
        let value = database.records(at: path).first?.value
        // Address was used in this process, so its name maps back to the type.
        #expect(value as? Address == Address(street: "A", number: 1))

        // An EncodedValue stores the original bytes under the original type.
        let copy = try SQLiteDatabase()
        copy.set(EncodedValue(typeName: String(reflecting: Address.self), json: Data(#"{"number":2,"street":"B"}"#.utf8)), for: path)
        #expect(copy.get(path) as Address? == Address(street: "B", number: 2))
        #expect(try EncodedValue(typeName: "X", json: Data(#"{"number":2,"street":"B"}"#.utf8)).decode(as: Address.self) == Address(street: "B", number: 2))
    }

    @Test("Two databases on one file in one process see each other's writes")
    func twoConnections() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let first = try SQLiteDatabase(path: path)
        let second = try SQLiteDatabase(path: path)
        Item.create(in: first, id: 1, title: "shared")
        #expect(second.get(id: 1, of: Item.self)?.title == "shared")
    }
}
