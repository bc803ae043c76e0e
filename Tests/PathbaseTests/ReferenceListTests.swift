import Pathbase
import Testing

// Model ids 400–499.

@Model(id: 400)
final class Card {
    @Property(id: 1) var title: String
}

/// A collection of our own, used as a reference list.
struct CardStack: SequenceInitializable {
    var cards: [Card]

    init<S: Sequence>(_ elements: S) where S.Element == Card {
        cards = Array(elements)
    }

    func makeIterator() -> IndexingIterator<[Card]> {
        cards.makeIterator()
    }
}

@Model(id: 401)
final class Board {
    @Property(id: 1) var name: String
    @ReferenceList(id: 2) var array: [Card]
    @ReferenceList(id: 3) var set: Set<Card>
    @ReferenceList(id: 4) var contiguous: ContiguousArray<Card>
    @ReferenceList(id: 5) var stack: CardStack
}

@Suite("Reference lists")
struct ReferenceListTests {

    private func cards(_ ids: [InstanceKey], in database: any Database) -> [Card] {
        ids.map { id in Card.create(in: database, id: id, title: "Card \(id)") }
    }

    @Test("Every list type reads empty before any write", arguments: DatabaseKind.allCases)
    func emptyByDefault(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        #expect(board.array.isEmpty)
        #expect(board.set.isEmpty)
        #expect(board.contiguous.isEmpty)
        #expect(board.stack.cards.isEmpty)
    }

    @Test("An Array list keeps order and duplicates", arguments: DatabaseKind.allCases)
    func array(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([3, 1, 2], in: database)
        board.array = [cards[0], cards[1], cards[2], cards[0]]
        #expect(board.array.map(\.id) == [3, 1, 2, 3])
        #expect(board.array.map(\.title) == ["Card 3", "Card 1", "Card 2", "Card 3"])
        board.array.append(cards[1])
        #expect(board.array.map(\.id) == [3, 1, 2, 3, 1])
        board.array.removeAll()
        #expect(board.array.isEmpty)
    }

    @Test("A Set list keeps its members", arguments: DatabaseKind.allCases)
    func set(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([5, 6, 7], in: database)
        board.set = Set(cards)
        #expect(board.set == Set(cards))
        #expect(Set(board.set.map(\.id)) == [5, 6, 7])
        board.set.remove(cards[1])
        #expect(Set(board.set.map(\.id)) == [5, 7])
    }

    @Test("A ContiguousArray list keeps order", arguments: DatabaseKind.allCases)
    func contiguousArray(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([9, 8], in: database)
        board.contiguous = ContiguousArray(cards)
        #expect(Array(board.contiguous.map(\.id)) == [9, 8])
    }

    @Test("A custom SequenceInitializable list keeps order", arguments: DatabaseKind.allCases)
    func customList(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([4, 2, 6], in: database)
        board.stack = CardStack(cards)
        #expect(board.stack.cards.map(\.id) == [4, 2, 6])
        #expect(board.stack.cards.map(\.title) == ["Card 4", "Card 2", "Card 6"])
    }

    @Test("The lists of one instance are independent of each other", arguments: DatabaseKind.allCases)
    func listsAreIndependent(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([1, 2], in: database)
        board.array = [cards[0]]
        board.contiguous = [cards[1]]
        #expect(board.array.map(\.id) == [1])
        #expect(board.contiguous.map(\.id) == [2])
        #expect(board.set.isEmpty)
    }

    @Test("A deleted element of a list reads with status .deleted", arguments: DatabaseKind.allCases)
    func deletedElement(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([1, 2], in: database)
        board.array = cards
        board.set = Set(cards)
        board.stack = CardStack(cards)
        cards[0].delete()

        #expect(board.array.count == 2)
        #expect(board.array[0].status == .deleted)
        #expect(board.array[1].status == .created)
        #expect(board.array[0].title == "Card 1")
        #expect(board.set.first { $0.id == 1 }?.status == .deleted)
        #expect(board.stack.cards.map(\.status) == [.deleted, .created])
    }

    @Test("deleteAndClearProperties() empties every list", arguments: DatabaseKind.allCases)
    func clearEmptiesLists(kind: DatabaseKind) {
        let database = kind.make()
        let board: Board = database.create(id: 1)
        let cards = cards([1], in: database)
        board.array = cards
        board.set = Set(cards)
        board.contiguous = ContiguousArray(cards)
        board.stack = CardStack(cards)
        board.deleteAndClearProperties()
        #expect(board.array.isEmpty)
        #expect(board.set.isEmpty)
        #expect(board.contiguous.isEmpty)
        #expect(board.stack.cards.isEmpty)
        #expect(cards[0].status == .created)
    }

    @Test("The generated create(in:) takes lists", arguments: DatabaseKind.allCases)
    func createWithLists(kind: DatabaseKind) {
        let database = kind.make()
        let cards = cards([1, 2], in: database)
        let board = Board.create(in: database, id: 1, name: "Sprint", array: cards, stack: CardStack(cards.reversed()))
        #expect(board.name == "Sprint")
        #expect(board.array.map(\.id) == [1, 2])
        #expect(board.stack.cards.map(\.id) == [2, 1])
        #expect(board.set.isEmpty)
    }
}
