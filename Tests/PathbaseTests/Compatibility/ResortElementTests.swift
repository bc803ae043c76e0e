import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

@Suite("StateModel compatibility: Array.resortElement")
struct ResortElementTests {

    @Test("An element whose key changed moves to its place, backward or forward")
    func moves() {
        var numbers = [1, 3, 5, 7, 9]
        numbers[4] = 2
        numbers.resortElement(at: 4)
        #expect(numbers == [1, 2, 3, 5, 7])
        numbers[0] = 6
        numbers.resortElement(at: 0)
        #expect(numbers == [2, 3, 5, 6, 7])
        numbers[2] = 5
        numbers.resortElement(at: 2)
        #expect(numbers == [2, 3, 5, 6, 7])
    }

    @Test("Models of a sorted list are reordered by a key path comparison")
    func models() {
        let database = InMemoryDatabase()
        var tickets = (1 ... 4).map { Ticket.create(in: database, id: $0, title: "T\($0)", estimate: $0 * 10) }
        tickets[3].estimate = 15
        tickets.resortElement(at: 3) { $0.estimate < $1.estimate }
        #expect(tickets.map(\.id) == [1, 4, 2, 3])
    }

    @Test("Among equal elements it stays put if it can; a bad index changes nothing")
    func equalAndOutOfRange() {
        var pairs = [(1, "a"), (2, "b"), (2, "c"), (2, "d"), (3, "e")]
        pairs.resortElement(at: 2) { $0.0 < $1.0 }
        #expect(pairs.map(\.1) == ["a", "b", "c", "d", "e"])
        pairs[0].0 = 2
        pairs.resortElement(at: 0) { $0.0 < $1.0 }
        #expect(pairs.map(\.1) == ["a", "b", "c", "d", "e"]) // already in order among equals
        pairs[0].0 = 4
        pairs.resortElement(at: 0) { $0.0 < $1.0 }
        #expect(pairs.map(\.1) == ["b", "c", "d", "e", "a"])
        var empty: [Int] = []
        empty.resortElement(at: 0)
        var one = [1]
        one.resortElement(at: -1)
        one.resortElement(at: 1)
        #expect(empty.isEmpty && one == [1])
    }

    @Test("Random lists with one changed element end up sorted like sorted() would")
    func random() {
        var generator = SplitMix64(seed: 19)
        for _ in 0 ..< 500 {
            let count = Int.random(in: 1 ... 20, using: &generator)
            var numbers = (0 ..< count).map { _ in Int.random(in: 0 ... 9, using: &generator) }.sorted()
            let index = Int.random(in: 0 ..< count, using: &generator)
            numbers[index] = Int.random(in: 0 ... 9, using: &generator)
            let expected = numbers.sorted()
            numbers.resortElement(at: index)
            #expect(numbers == expected)
        }
    }
}
