import Foundation
@testable import Pathbase
import PathbaseSQLite
import Testing

/// A later version of `CollectionUser` whose `name` became a number and `age` a string.
private struct CollectionUserRetyped: Codable, Identifiable {
    var id: UUID
    var name: Int
    var age: String?
}

/// A struct with a computed property, which is no stored field.
private struct CollectionUserWithInitials: Codable, Identifiable {
    var id: UUID
    var name: String
    var initials: String { String(name.prefix(1)) }
}

/// Bad input gets a ``CollectionError`` whose message names the collection, the instance and
/// the key, and nothing stored is changed.
@Suite("Codable collections: typed errors")
struct CollectionErrorTests {

    let ada = CollectionUser(id: UUID(), name: "Ada", age: 36, tags: ["math"])

    @Test(arguments: DatabaseKind.backends)
    func aStoredValueOfAnotherTypeIsNamedNotReadAsMissingOrNil(kind: DatabaseKind) throws {
        let database = kind.make()
        let users = database.collection(CollectionUser.self, name: "retyped")
        try users.save(ada)
        let retyped = database.collection(CollectionUserRetyped.self, name: "retyped")
        let error = #expect(throws: CollectionError.self) { try retyped.fetch(id: ada.id) }
        guard case let .undecodableField(collection, id, key, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(collection == "retyped" && id == ada.id.uuidString && key == "name")
        #expect(error?.localizedDescription.contains("'name'") == true)
        // An optional field of another type is an error too, not a silent nil.
        struct AgeAsText: Codable, Identifiable {
            var id: UUID
            var age: String?
        }
        let ages = database.collection(AgeAsText.self, name: "retyped")
        #expect(throws: CollectionError.undecodableField(collection: "retyped", id: ada.id.uuidString, key: "age", reason: "the stored value is not a String")) {
            try ages.fetch()
        }
        // Nothing changed: the struct as saved still reads back.
        #expect(try users.fetch(id: ada.id) == ada)
    }

    @Test
    func aStoredNilForAFieldThatIsNoLongerOptionalIsAMissingValue() throws {
        let database = InMemoryDatabase()
        var ageless = ada
        ageless.age = nil
        try database.collection(CollectionUser.self, name: "retyped").save(ageless)
        struct AgeRequired: Codable, Identifiable {
            var id: UUID
            var age: Int
        }
        #expect(throws: CollectionError.missingField(collection: "retyped", id: ada.id.uuidString, key: "age")) {
            try database.collection(AgeRequired.self, name: "retyped").fetch()
        }
    }

    @Test
    func anIndexOnAPropertyThatIsNotStoredIsRefusedBeforeAnyWrite() throws {
        let database = try SQLiteDatabase()
        let users = database.collection(CollectionUserWithInitials.self, indexes: [\.initials])
        let error = #expect(throws: CollectionError.self) {
            try users.save(CollectionUserWithInitials(id: UUID(), name: "Ada"))
        }
        guard case let .unknownField(collection, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(collection == "CollectionUserWithInitials")
        #expect(database.collectionNames.isEmpty)
        #expect(try users.count() == 0)
    }

    @Test
    func anExhaustedIdGeneratorThrowsAndKeepsItsCounter() throws {
        let database = InMemoryDatabase()
        let nodes = database.collection(CollectionNode.self, name: "nodes")
        _ = try nodes.nextId()
        let counterPath = Path(model: CollectionKeys.counterModel, instance: nodes.modelKey, property: 2)
        database.set((1 << 31) - 1, for: counterPath)
        #expect(throws: CollectionError.idGeneratorExhausted(collection: "nodes")) { try nodes.nextId() }
        #expect(database.get(counterPath) == (1 << 31) - 1)
    }

    @Test
    func aStructThatEncodesAsOneValueIsRefusedWithItsReason() throws {
        struct Wrapped: Codable, Identifiable {
            var id: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(id)
            }
        }
        let database = InMemoryDatabase()
        let error = #expect(throws: CollectionError.self) {
            try database.collection(Wrapped.self, name: "wrapped").save(Wrapped(id: 1))
        }
        guard case let .unsupportedEncoding(collection, reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(collection == "wrapped" && !reason.isEmpty)
        #expect(try database.collection(Wrapped.self, name: "wrapped").count() == 0)
    }

    @Test(arguments: DatabaseKind.backends)
    func aBatchWithOneBadStructStoresNone(kind: DatabaseKind) throws {
        let fussy = kind.make().collection(CollectionFussy.self)
        try fussy.save(CollectionFussy(id: 1, value: 1))
        // The struct's own encoding error, as a typed error of the collection.
        #expect(throws: CollectionError.unsupportedEncoding(collection: "CollectionFussy", reason: "Refused()")) {
            try fussy.save([CollectionFussy(id: 1, value: 5), CollectionFussy(id: 2, value: 2), CollectionFussy(id: 3, value: -1)])
        }
        #expect(try fussy.fetch() == [CollectionFussy(id: 1, value: 1)])
    }

    @Test
    func everyMessageNamesWhatWentWrong() {
        let errors: [(CollectionError, [String])] = [
            (.missingField(collection: "users", id: "7", key: "rank"), ["users", "7", "'rank'"]),
            (.undecodableField(collection: "users", id: "7", key: "name", reason: "not a Int"), ["users", "7", "'name'", "not a Int"]),
            (.idCollision(collection: "tags", id: "swift", storedId: "kotlin"), ["tags", "swift", "kotlin"]),
            (.fieldKeyCollision(collection: "users", key: "a", otherKey: "b"), ["users", "'a'", "'b'"]),
            (.collectionNameCollision(name: "users", storedName: "others"), ["'users'", "'others'"]),
            (.unknownField(collection: "users", key: "nickname"), ["users", "'nickname'"]),
            (.unsupportedEncoding(collection: "users", reason: "it encodes as one value"), ["users", "it encodes as one value"]),
            (.idGeneratorExhausted(collection: "nodes"), ["nodes"])
        ]
        for (error, names) in errors {
            let message = error.localizedDescription
            for name in names { #expect(message.contains(name), "\(message)") }
        }
    }
}
