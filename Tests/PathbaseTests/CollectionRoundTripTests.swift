import Foundation
import Pathbase
import PathbaseTestSupport
import Testing

/// A struct with a field of every kind a collection stores.
private struct Everything: Codable, Identifiable, Equatable {
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case rectangle(width: Int, height: Int)
        case named(String, tags: [String])
        case empty
    }

    struct Inner: Codable, Equatable {
        var label: String
        var values: [Int]
        var deeper: [String: Bool]
    }

    var id: Int
    var integer: Int
    var small: Int8
    var unsigned: UInt64
    var double: Double
    var float: Float
    var flag: Bool
    var text: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var optionalInteger: Int?
    var optionalText: String?
    var optionalInner: Inner?
    var list: [String]
    var dictionary: [String: Int]
    var inner: Inner
    var shape: Shape
    var shapes: [Shape]
}

/// Random values of every kind, from a fixed seed.
private struct EverythingGenerator {
    var random: SplitMix64

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1)) + range.lowerBound
    }

    mutating func bool() -> Bool { random.next() % 2 == 0 }

    mutating func text() -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "é", "ß", "中", "🙂", "\u{0}", "\"", "\\", "\n"]
        var scalars = String.UnicodeScalarView()
        for _ in 0 ..< int(0 ... 12) { scalars.append(alphabet[int(0 ... alphabet.count - 1)]) }
        return String(scalars)
    }

    mutating func double() -> Double {
        switch int(0 ... 4) {
        case 0: 0
        case 1: -Double(int(0 ... 1_000_000)) / 7
        case 2: .greatestFiniteMagnitude
        case 3: .leastNonzeroMagnitude
        default: Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)
        }
    }

    mutating func inner() -> Everything.Inner {
        Everything.Inner(
            label: text(),
            values: (0 ..< int(0 ... 4)).map { _ in int(-1000 ... 1000) },
            deeper: Dictionary((0 ..< int(0 ... 3)).map { _ in (text(), bool()) }, uniquingKeysWith: { first, _ in first })
        )
    }

    mutating func shape() -> Everything.Shape {
        switch int(0 ... 3) {
        case 0: .circle(radius: double())
        case 1: .rectangle(width: int(-50 ... 50), height: int(0 ... 9))
        case 2: .named(text(), tags: [text()])
        default: .empty
        }
    }

    mutating func everything(id: Int) -> Everything {
        Everything(
            id: id,
            integer: bool() ? Int(bitPattern: UInt(random.next())) : int(-5 ... 5),
            small: Int8(truncatingIfNeeded: random.next()),
            unsigned: bool() ? random.next() : UInt64(int(0 ... 9)),
            double: double(),
            float: Float(int(-100_000 ... 100_000)) / 8,
            flag: bool(),
            text: text(),
            data: Data((0 ..< int(0 ... 16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
            date: Date(timeIntervalSinceReferenceDate: Double(int(-1_000_000_000 ... 1_000_000_000)) / 4),
            uuid: UUID(),
            url: URL(string: "https://example.com/\(int(0 ... 999))?q=\(int(0 ... 9))") ?? URL(fileURLWithPath: "/"),
            optionalInteger: bool() ? int(-99 ... 99) : nil,
            optionalText: bool() ? text() : nil,
            optionalInner: bool() ? inner() : nil,
            list: (0 ..< int(0 ... 5)).map { _ in text() },
            dictionary: Dictionary((0 ..< int(0 ... 4)).map { _ in (text(), int(-9 ... 9)) }, uniquingKeysWith: { first, _ in first }),
            inner: inner(),
            shape: shape(),
            shapes: (0 ..< int(0 ... 3)).map { _ in shape() }
        )
    }
}

@Suite("Codable collections: round trip of every field kind")
struct CollectionRoundTripTests {

    static let seed: UInt64 = 0x5EED_C011_EC71_0005

    @Test(arguments: DatabaseKind.allCases)
    func randomStructsRoundTrip(kind: DatabaseKind) throws {
        print("CollectionRoundTripTests seed: \(Self.seed)")
        var generator = EverythingGenerator(random: SplitMix64(seed: Self.seed))
        let database = kind.make()
        let collection = database.collection(Everything.self)
        let originals = (0 ..< 60).map { generator.everything(id: $0) }
        try collection.save(Array(originals.prefix(30)))
        for original in originals.dropFirst(30) { try collection.save(original) }
        for original in originals {
            let fetched = try collection.fetch(id: original.id)
            #expect(fetched == original, "seed \(Self.seed), case \(original.id)")
        }
        // Saving changed copies stores the changes (and only they differ).
        var changed = originals.map { _ in generator.everything(id: 0) }
        for index in changed.indices { changed[index].id = originals[index].id }
        try collection.save(changed)
        // A fresh handle reads from storage only.
        let fresh = database.collection(Everything.self)
        #expect(try fresh.fetch() == changed.sorted { $0.id < $1.id }, "seed \(Self.seed)")
    }
}
