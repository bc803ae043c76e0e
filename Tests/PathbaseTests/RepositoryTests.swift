import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Model(id: 1401)
final class RepositoryPerson {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var age: Int = 0

    @Reference(id: 3)
    var partner: RepositoryPerson?
}

/// One generic body, written against ``Repository`` only, run on every backend alone and under
/// every wrapper and ordered pair of wrappers (``DatabaseKind``).
@Suite("Repository over collections and models")
struct RepositoryTests {

    /// App code written once against the protocol.
    private func exercise<R: Repository>(_ repository: R, make: (Int) -> R.Element, id: (R.Element) -> R.ID, age: @escaping (R.Element) -> Int) throws {
        let elements = (0 ..< 10).map(make)
        for element in elements { try repository.save(element) }
        #expect(try repository.count() == 10)
        #expect(try repository.fetch().count == 10)
        #expect(try repository.fetch(id: id(elements[3])).map(id) == id(elements[3]))
        let adults = try repository.fetch(where: R.Filter { age($0) >= 18 }, offset: 0, limit: nil)
        #expect(adults.count == elements.filter { age($0) >= 18 }.count)
        #expect(try repository.fetch(where: R.Filter { _ in true }, offset: 2, limit: 3).count == 3)
        try repository.delete(id: id(elements[0]))
        #expect(try repository.fetch(id: id(elements[0])) == nil)
        #expect(try repository.count() == 9)
    }

    @Test(arguments: DatabaseKind.allCases)
    func oneBodyRunsOnCollectionsOnEveryBackend(kind: DatabaseKind) throws {
        let users = kind.make().collection(CollectionUser.self)
        try exercise(users, make: { CollectionUser(id: UUID(), name: "u\($0)", age: $0 * 5, tags: []) }, id: \.id, age: { $0.age ?? 0 })
    }

    @Test(arguments: DatabaseKind.allCases)
    func oneBodyRunsOnModelsOnEveryBackend(kind: DatabaseKind) throws {
        let database = kind.make()
        try exercise(
            database.repository(of: RepositoryPerson.self),
            make: {
                RepositoryPerson.create(in: database, id: $0 + 1, name: "p\($0)", age: $0 * 5, partner: nil)
            }, id: \.id, age: \.age)
    }

    @Test(arguments: DatabaseKind.allCases)
    func cyclicGraphsRoundTrip(kind: DatabaseKind) throws {
        let database = kind.make()
        // Structs referring to each other by id.
        let nodes = database.collection(CollectionNode.self)
        try nodes.save([CollectionNode(id: 1, title: "a", next: 2), CollectionNode(id: 2, title: "b", next: 1)])
        let first = try nodes.fetch(id: 1)
        let second = try first?.next.flatMap { try nodes.fetch(id: $0) }
        #expect(second?.title == "b")
        #expect(try second?.next.flatMap { try nodes.fetch(id: $0) } == first)
        // Models referring to each other.
        let alice = RepositoryPerson.create(in: database, id: 1, name: "Alice", age: 30, partner: nil)
        let bob = RepositoryPerson.create(in: database, id: 2, name: "Bob", age: 31, partner: alice)
        alice.partner = bob
        let people = database.repository(of: RepositoryPerson.self)
        let fetched = try people.fetch(id: 1)
        #expect(fetched?.partner?.partner?.name == "Alice")
        #expect(fetched?.partner?.partner?.partner?.name == "Bob")
    }
}
