import Foundation
import Pathbase
import Testing

/// An id whose instance key is chosen by the test: two different ids with one key are what
/// a hash collision of `String` or `UUID` ids looks like (63 bits: none can be found).
private struct CollidingId: CollectionIdentifier, CustomStringConvertible {
    var name: String
    var key: InstanceKey

    init(_ name: String, key: InstanceKey) {
        self.name = name
        self.key = key
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: "@")
        guard parts.count == 2, let key = InstanceKey(parts[1]) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not NAME@KEY: \(text)"))
        }
        self.init(String(parts[0]), key: key)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(name)@\(key)")
    }

    var description: String { name }
    var collectionInstanceKey: InstanceKey { key }
    static var isExactInstanceKey: Bool { false }
}

private struct CollidingTag: Codable, Identifiable, Equatable {
    var id: CollidingId
    var label: String
}

extension CollidingId: Equatable, Hashable {}

/// Two ids of one save that share an instance key are refused before anything is written,
/// like a new id colliding with a stored one (found by `scripts/mutants`,
/// collection-id-collision-not-refused: only the stored case was tested).
@Suite("Codable collections: ids colliding within one save")
struct CollectionIdCollisionTests {

    @Test("two ids of one save with one instance key: idCollision naming both, and nothing stored", arguments: DatabaseKind.backends)
    func collisionWithinOneSave(kind: DatabaseKind) throws {
        let database = kind.make()
        let tags = database.collection(CollidingTag.self, name: "colliding")
        try tags.save(CollidingTag(id: CollidingId("kept", key: 1), label: "before"))

        let swift = CollidingTag(id: CollidingId("swift", key: 7), label: "Swift")
        let kotlin = CollidingTag(id: CollidingId("kotlin", key: 7), label: "Kotlin")
        #expect(throws: CollectionError.idCollision(collection: "colliding", id: "kotlin", storedId: "swift")) {
            try tags.save([swift, kotlin])
        }
        // Checked before the first write: neither is stored, the earlier one is untouched.
        #expect(try tags.fetch(id: swift.id) == nil)
        #expect(try tags.fetch(id: kotlin.id) == nil)
        #expect(try tags.fetch().map(\.label) == ["before"])

        // The same id twice in one save is no collision: the last write wins.
        try tags.save([swift, CollidingTag(id: swift.id, label: "Swift 6")])
        #expect(try tags.fetch(id: swift.id)?.label == "Swift 6")
        // And a colliding id in a later save meets the stored origin.
        #expect(throws: CollectionError.idCollision(collection: "colliding", id: "kotlin", storedId: "swift")) {
            try tags.save(kotlin)
        }
        #expect(try tags.fetch(id: swift.id)?.label == "Swift 6")
    }
}
