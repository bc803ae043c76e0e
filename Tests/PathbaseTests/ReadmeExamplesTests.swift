import Pathbase
import PathbaseSQLite
import Testing

// The README's examples, compiled and checked. Keep them in step with README.md.

@Model(id: 901)
private final class ReadmePerson {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var age: Int = 18

    @Reference(id: 3)
    var partner: ReadmePerson?

    @ReferenceList(id: 4)
    var friends: [ReadmePerson]
}

@Suite struct ReadmeExamplesTests {

    @Test(arguments: [false, true])
    func quickStart(customDatabase: Bool) {
        let database: any Database = customDatabase ? ReadmeMinimalDatabase() : InMemoryDatabase()

        let alice = ReadmePerson.create(in: database, id: 1, name: "Alice")
        let bob: ReadmePerson = database.create(id: 2)
        bob.name = "Bob"
        bob.age += 12
        alice.partner = bob
        alice.friends = [bob]

        let fetched: ReadmePerson? = database.get(id: 1)
        #expect(fetched?.partner?.name == "Bob")
        #expect(database.all(of: ReadmePerson.self).count == 2)
        #expect(bob.age == 30)

        bob.delete()
        #expect("\(alice.partner!.status)" == "deleted")
        bob.insert()
        #expect(alice.partner?.status == .created)
        #expect(alice.friends.map(\.name) == ["Bob"])
    }

    @Test("The Queries section", arguments: [DatabaseKind.inMemory, .sqliteMemory])
    func queries(kind: DatabaseKind) {
        let database = kind.make()
        let alice = ReadmePerson.create(in: database, id: 1, name: "Alice", age: 30)
        let bob = ReadmePerson.create(in: database, id: 2, name: "Bob", age: 40, partner: alice, friends: [alice])
        ReadmePerson.create(in: database, id: 3, name: "Anna", age: 12, friends: [alice, bob])
        ReadmePerson.create(in: database, id: 4, name: "Albert Longname", age: 70)

        let adults = QueryDescriptor<ReadmePerson>(where: \.age >= 18 && .hasPrefix(\.name, "A"), sortBy: \.name, limit: 20)
        let page = database.fetch(adults)
        let total = database.count(adults)
        #expect(page.map(\.name) == ["Albert Longname", "Alice"])
        #expect(total == 2)

        let long = QueryDescriptor<ReadmePerson>(filter: { $0.name.count > 12 }, sortBy: { $0.age })
        #expect(database.fetch(long).map(\.id) == [4])

        let observed = ObservableDatabase(wrapping: database)
        let live = LiveQuery(adults, in: observed)
        ReadmePerson(database: observed, id: 3).age = 18
        #expect(live.results.map(\.name) == ["Albert Longname", "Alice", "Anna"])

        let friendsOfAlice = alice.referrers(through: \ReadmePerson.friends)
        let partnersOfAlice = alice.referrers(through: \ReadmePerson.partner)
        #expect(friendsOfAlice.map(\.name) == ["Bob", "Anna"])
        #expect(partnersOfAlice.map(\.name) == ["Bob"])
    }
}
