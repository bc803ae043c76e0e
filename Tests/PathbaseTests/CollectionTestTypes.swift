import Foundation
import Pathbase
import PathbaseTestSupport

/// The user struct: a UUID id, an optional and an array.
struct CollectionUser: Codable, Identifiable, Equatable, Sendable {
    var id: UUID
    var name: String
    var age: Int?
    var tags: [String]
}

/// The same collection read by a later version of the app: one field more.
struct CollectionUserWithScore: Codable, Identifiable, Equatable {
    var id: UUID
    var name: String
    var age: Int?
    var tags: [String]
    var score: Int?
}

/// A later version whose added field is not optional.
struct CollectionUserWithRank: Codable, Identifiable, Equatable {
    var id: UUID
    var name: String
    var rank: Int
}

/// A struct with a string id.
struct CollectionTag: Codable, Identifiable, Equatable {
    var id: String
    var label: String
}

/// A struct with a generated integer id, referring to others by id (a graph with cycles).
struct CollectionNode: Codable, Identifiable, Equatable {
    var id: Int
    var title: String
    var next: Int?
}

/// A struct that refuses to encode one value, to make a batch fail half way.
struct CollectionFussy: Codable, Identifiable, Equatable {
    struct Refused: Error {}
    var id: Int
    var value: Int

    func encode(to encoder: any Encoder) throws {
        if value < 0 { throw Refused() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(value, forKey: .value)
    }
}

/// A struct whose top-level coding keys are chosen at run time (to provoke collisions).
struct CollectionDynamic: Codable, Identifiable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var id: Int
    var fields: [String: Int]

    init(id: Int, fields: [String: Int]) {
        self.id = id
        self.fields = fields
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(Int.self, forKey: Key(stringValue: "id"))
        var fields: [String: Int] = [:]
        for key in container.allKeys where key.stringValue != "id" {
            fields[key.stringValue] = try container.decode(Int.self, forKey: key)
        }
        self.fields = fields
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key(stringValue: "id"))
        for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
    }
}

func makeUsers(count: Int, seed: UInt64) -> [CollectionUser] {
    var random = SplitMix64(seed: seed)
    let names = ["Ada", "Grace", "Linus", "Alan", "Barbara", "Edsger", "", "Zed"]
    return (0 ..< count).map { index in
        let age = random.next() % 5 == 0 ? nil : Int(random.next() % 80)
        return CollectionUser(
            id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index)) ?? UUID(),
            name: names[Int(random.next() % UInt64(names.count))],
            age: age,
            tags: random.next() % 2 == 0 ? ["a"] : []
        )
    }
}
