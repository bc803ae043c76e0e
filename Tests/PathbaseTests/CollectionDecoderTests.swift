import Foundation
@testable import Pathbase
import Testing

/// Notes the decoders that structs were decoded with, weakly.
private final class DecoderSpy: @unchecked Sendable {
    // @unchecked: `seen` is guarded by `lock`.
    @TaskLocal static var current: DecoderSpy?

    private struct Seen { weak var decoder: AnyObject? }
    private let lock = NSLock()
    private var seen: [Seen] = []

    func saw(_ decoder: any Decoder) {
        lock.withLock { seen.append(Seen(decoder: decoder as AnyObject)) }
    }

    var count: Int { lock.withLock { seen.count } }
    var anyAlive: Bool { lock.withLock { seen.contains { $0.decoder != nil } } }
}

/// A struct whose `init(from:)` reads each field through a key type of its own.
private struct TwoKeyTypes: Codable, Identifiable, Equatable {
    var id: Int
    var name: String

    private enum CodingKeys: String, CodingKey { case id, name }
    private enum IdKey: String, CodingKey { case id }
    private enum NameKey: String, CodingKey { case name }

    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: IdKey.self).decode(Int.self, forKey: .id)
        name = try decoder.container(keyedBy: NameKey.self).decode(String.self, forKey: .name)
        DecoderSpy.current?.saw(decoder)
    }
}

@Suite("Codable collections: the decoder of a fetch")
struct CollectionDecoderTests {

    @Test("Structs that read their fields through several key types decode right, one after another, and the fetch lets its decoder go", arguments: DatabaseKind.allCases)
    func severalKeyTypesAndTheDecoderIsFreed(kind: DatabaseKind) throws {
        let items = kind.make().collection(TwoKeyTypes.self)
        let saved = (0 ..< 6).map { TwoKeyTypes(id: $0, name: "item \($0)") }
        try items.save(saved)
        let spy = DecoderSpy()
        try DecoderSpy.$current.withValue(spy) { () throws -> Void in
            #expect(try items.fetch() == saved)
            #expect(try items.fetch(where: \.name == "item 3") == [saved[3]])
            #expect(try items.fetch(where: \.name >= "item 4", sortedBy: \.id, descending: true) == [saved[5], saved[4]])
            #expect(try items.fetch(id: 2) == saved[2])
        }
        #expect(spy.count >= saved.count + 4)
        // Every decoder was let go when its fetch ended (its kept container holds it).
        #expect(!spy.anyAlive)
    }
}
