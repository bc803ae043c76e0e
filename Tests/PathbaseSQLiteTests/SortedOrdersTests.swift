import Foundation
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: a read-only connection keeps a sorted order until the file changes")
struct SortedOrdersTests {

    private let byName = StoredSort(propertyId: 1, storedAs: String.self, defaultValue: .text(""), reverse: false)

    @Test("pages of a sorted order are read once on a read-only file, and read again after another connection commits")
    func keptUntilTheFileChanges() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("sorted.sqlite")
        let writer = try SQLiteDatabase(path: path)
        defer { writer.close() }
        try writer.batch {
            for id in 1 ... 30 { Person.create(in: writer, id: id, name: String(format: "P%02d", 31 - id), age: id) }
        }
        let reader = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        defer { reader.close() }
        let answered = reader.queriesAnsweredInSQL
        #expect(reader.sortedInstanceIds(of: Person.modelId, sortedBy: byName, offset: 0, limit: 3) == [30, 29, 28])
        #expect(reader.sortedInstanceIds(of: Person.modelId, sortedBy: byName, offset: 27, limit: 10) == [3, 2, 1])
        #expect(reader.queriesAnsweredInSQL == answered + 1, "the second page came from the kept order")
        // Another connection renames 1 to sort first, and deletes 30.
        Person(database: writer, id: 1).name = "A"
        Person(database: writer, id: 30).delete()
        #expect(reader.sortedInstanceIds(of: Person.modelId, sortedBy: byName, offset: 0, limit: 3) == [1, 29, 28])
        #expect(reader.queriesAnsweredInSQL == answered + 2)
    }

    @Test("a writable connection runs the query for every page: its own writes change the order")
    func writableRunsTheQuery() throws {
        let directory = TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("writable.sqlite"))
        defer { database.close() }
        for id in 1 ... 5 { Person.create(in: database, id: id, name: "P\(id)", age: id) }
        #expect(database.sortedInstanceIds(of: Person.modelId, sortedBy: byName, offset: 0, limit: 2) == [1, 2])
        Person(database: database, id: 5).name = "A"
        #expect(database.sortedInstanceIds(of: Person.modelId, sortedBy: byName, offset: 0, limit: 2) == [5, 1])
    }
}
