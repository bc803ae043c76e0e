import Pathbase
import Testing

// Model ids 550–599.

/// Public: the generated members must be public too, or this would not compile
/// (they satisfy requirements of the public ModelProtocol).
@Model(id: 550)
public final class PublicEntry {
    @Property(id: 1) public var title: String
    @Reference(id: 2) public var next: PublicEntry?

    public var shout: String { title.uppercased() }
}

/// Not final: the generated init is `required`, so subclasses work.
@Model(id: 551)
class Shape {
    @Property(id: 1) var name: String
    @Property(id: 2) var sides: Int = 3

    func describe() -> String { "\(name) with \(sides) sides" }
}

final class Square: Shape {
    override func describe() -> String { "square " + super.describe() }
}

/// Private: the generated members become fileprivate, which the conformance can see.
@Model(id: 552)
private final class Secret {
    @Property(id: 1) var code: Int
}

@Suite("Model declarations: access levels and non-final classes")
struct ModelDeclarationTests {

    @Test("A public model works like any model", arguments: DatabaseKind.allCases)
    func publicModel(kind: DatabaseKind) {
        let database = kind.make()
        let first = PublicEntry.create(in: database, id: 1, title: "first")
        let second = PublicEntry.create(in: database, id: 2, title: "second", next: first)
        #expect(second.next?.shout == "FIRST")
        #expect(PublicEntry.PropertyId.allCases.map(\.rawValue) == [1, 2])
        #expect(database.all(of: PublicEntry.self).count == 2)
    }

    @Test("A non-final model class works like a final one", arguments: DatabaseKind.allCases)
    func nonFinalModel(kind: DatabaseKind) {
        let database = kind.make()
        let shape: Shape = database.create(id: 1)
        shape.name = "triangle"
        #expect(shape.describe() == "triangle with 3 sides")
        let fetched: Shape? = database.get(id: 1)
        #expect(fetched == shape)
        #expect(fetched?.sides == 3)
        #expect(database.all(of: Shape.self).map(\.id) == [1])
    }

    @Test("A subclass of a model reads and writes through the model's properties", arguments: DatabaseKind.allCases)
    func subclassOfModel(kind: DatabaseKind) {
        let database = kind.make()
        let square = Square.create(in: database, id: 1, name: "block", sides: 4)
        #expect(type(of: square) == Square.self)
        #expect(square.describe() == "square block with 4 sides")
        #expect(Square.modelId == Shape.modelId)
        let fetched: Square? = database.get(id: 1)
        #expect(fetched?.name == "block")
    }

    @Test("A private model works within its file", arguments: DatabaseKind.allCases)
    func privateModel(kind: DatabaseKind) {
        let database = kind.make()
        let secret = Secret.create(in: database, id: 1, code: 1234)
        let fetched: Secret? = database.get(id: 1)
        #expect(fetched?.code == 1234)
        #expect(secret == fetched)
    }
}
