import Testing
import Pathbase

@Model(id: 1)
final class Person {
    @Property(id: 1)
    var name: String

    @Property(id: 2)
    var age: Int = 18

    @Reference(id: 3)
    var partner: Person?

    @ReferenceList(id: 4)
    var friends: [Person]

    let constant = 42
    var shifted: Int { age + constant }
}

@Test func smoke() {
    let db = InMemoryDatabase()
    let p = Person.create(in: db, id: 1, name: "A")
    #expect(p.age == 18)
    p.age = 3
    #expect(p.age == 3)
}
