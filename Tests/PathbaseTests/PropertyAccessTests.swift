import Pathbase
import Testing

// Model ids 250–299.

@Model(id: 250)
final class Account {
    @Property(id: 1) var owner: String
    @Property(id: 2) var balance: Int
    @Property(id: 3) var limit: Double = 100
}

@Suite("Reading and writing properties")
struct PropertyAccessTests {

    @Test("A value written through a model reads back", arguments: DatabaseKind.allCases)
    func roundTrip(kind: DatabaseKind) {
        let database = kind.make()
        let account: Account = database.create(id: 1)
        account.owner = "Ada"
        account.balance = 10
        account.limit = 2.5
        #expect(account.owner == "Ada")
        #expect(account.balance == 10)
        #expect(account.limit == 2.5)
        account.owner = "Grace"
        #expect(account.owner == "Grace")
    }

    @Test("Another handle of the same instance sees the same values", arguments: DatabaseKind.allCases)
    func otherHandleReads(kind: DatabaseKind) {
        let database = kind.make()
        let account: Account = database.create(id: 1)
        account.owner = "Ada"
        let fetched: Account? = database.get(id: 1)
        #expect(fetched?.owner == "Ada")
        let handle = Account(database: database, id: 1)
        #expect(handle.owner == "Ada")
    }

    @Test("A write through another handle is visible through the first", arguments: DatabaseKind.allCases)
    func otherHandleWrites(kind: DatabaseKind) {
        let database = kind.make()
        let account: Account = database.create(id: 1)
        let other = database.active(id: 1, of: Account.self)
        other?.balance = 77
        #expect(account.balance == 77)
        account.balance = 78
        #expect(other?.balance == 78)
    }

    @Test("Compound assignment reads and writes the stored value", arguments: DatabaseKind.allCases)
    func compoundAssignment(kind: DatabaseKind) {
        let database = kind.make()
        let account: Account = database.create(id: 1)
        account.balance = 2
        let extra = account.balance + 3
        account.balance += extra
        #expect(account.balance == 7)
        account.limit *= 2
        #expect(account.limit == 200)
        account.owner += "Ada"
        account.owner += " Lovelace"
        #expect(account.owner == "Ada Lovelace")
    }

    @Test("Values are separate per instance and per property", arguments: DatabaseKind.allCases)
    func isolation(kind: DatabaseKind) {
        let database = kind.make()
        let first: Account = database.create(id: 1)
        let second: Account = database.create(id: 2)
        first.balance = 1
        second.balance = 2
        first.owner = "first"
        #expect(first.balance == 1)
        #expect(second.balance == 2)
        #expect(second.owner == "")
    }

    @Test("A property is stored at (model id, instance id, property id)", arguments: DatabaseKind.allCases)
    func storedAtPath(kind: DatabaseKind) {
        let database = kind.make()
        let account: Account = database.create(id: 9)
        account.owner = "Ada"
        let path = Path(model: 250, instance: 9, property: 1)
        #expect(account.path(of: .owner) == path)
        let stored: String? = database.get(path)
        #expect(stored == "Ada")

        // And the other way round: a value set at the path is the property's value.
        database.set(500, for: Path(model: 250, instance: 9, property: 2))
        #expect(account.balance == 500)
    }

    @Test("Setting a property does not create the instance", arguments: DatabaseKind.allCases)
    func setDoesNotCreate(kind: DatabaseKind) {
        let database = kind.make()
        let handle = Account(database: database, id: 5)
        handle.owner = "Nobody"
        #expect(handle.status == .notCreated)
        #expect(database.get(id: 5, of: Account.self) == nil)
        #expect(database.all(of: Account.self).isEmpty)
        // The value is there once the instance is created.
        let created: Account = database.create(id: 5)
        #expect(created.owner == "Nobody")
    }
}
