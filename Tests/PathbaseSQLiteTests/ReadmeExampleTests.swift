import Foundation
import Pathbase
import PathbaseSQLite
import Testing

// The README's "SQLite files" example, compiled and checked. Keep it in step with README.md.

@Suite("README: SQLite files")
struct ReadmeExampleTests {

    @Test("The SQLite example stores, batches and reopens")
    func sqliteExample() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("people.sqlite")

        let database = try SQLiteDatabase(path: path) // or SQLiteDatabase() in memory
        let alice = Person.create(in: database, id: 1, name: "Alice")
        try database.batch { // one transaction: all of it is stored, or none
            alice.age = 31
            alice.friends = [Person.create(in: database, id: 2, name: "Bob")]
        }
        database.close() // optional; also closes when released

        let reopened = try SQLiteDatabase(path: path)
        let fetched: Person? = reopened.get(id: 1)
        #expect(fetched?.age == 31)
        #expect(fetched?.friends.map(\.name) == ["Bob"])

        // "Reads": many reads in one read transaction.
        let names = try reopened.read { reopened.all(of: Person.self).map(\.name) }
        #expect(names.sorted() == ["Alice", "Bob"])
    }
}
