import Foundation
import Pathbase
import Testing

// The README's "Codable collections" example, exactly as printed there.
struct User: Codable, Identifiable {
    var id: UUID
    var name: String
    var age: Int?
    var tags: [String]
}

@Suite("README: Codable collections")
struct CollectionReadmeTests {

    @Test
    func theReadmeExampleRuns() throws {
        let database = InMemoryHistoryDatabase()
        let (a, b, c) = (
            User(id: UUID(), name: "Ada", age: 36, tags: []),
            User(id: UUID(), name: "Bob", age: 12, tags: []),
            User(id: UUID(), name: "Cy", age: 18, tags: ["x"])
        )
        let user = a
        let id = a.id

        // README: begin
        let users = database.collection(User.self, name: "users", indexes: [\.name, \.age])
        try users.save(user) // upsert: writes the fields that changed
        try users.save([a, b, c]) // one transaction
        let adults = try users.fetch(where: \.age >= 18 && \.name != "", sortedBy: \.name, limit: 20)
        let one = try users.fetch(id: id)
        try users.delete(id: id)
        try users.delete(where: \.age < 13)
        try users.removeAll()
        // README: end

        #expect(adults.map(\.name) == ["Ada", "Cy"])
        #expect(one?.name == "Ada")
        #expect(try users.fetch().isEmpty)
        #expect(try database.collection(User.self).fetch().isEmpty)
    }
}
