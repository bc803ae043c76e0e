import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: value indexes are created for the properties queries use")
struct ValueIndexTests {

    private func indexNames(at path: String) throws -> Set<String> {
        let queue = try rawQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'value_index_%'"))
        }
    }

    @Test("Writes create no value index; the first query and inverse lookup of a property create its own, and the query uses it")
    func queriesCreateTheirIndexes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("indexes.sqlite")
        let database = try SQLiteDatabase(path: path)
        let people = (1 ... 50).map { Person.create(in: database, id: $0, name: "P\($0)", age: $0) }
        people[1].partner = people[0]
        people[2].partner = people[0]
        #expect(try indexNames(at: path).isEmpty)

        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 48, sortBy: \.age)).map(\.id) == [48, 49, 50])
        #expect(try indexNames(at: path) == ["value_index_1_2"])

        #expect(people[0].referrers(through: \Person.partner).map(\.id) == [2, 3])
        #expect(try indexNames(at: path) == ["value_index_1_2", "value_index_1_8"])
        database.close()
    }

    @Test("An inverse lookup's index holds the bodies (a match is then no second seek into its row), also replacing a query's index of the same property")
    func inverseLookupsUseACoveringIndex() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("covering.sqlite")
        let database = try SQLiteDatabase(path: path)
        let people = (1 ... 20).map { Person.create(in: database, id: $0, name: "P\($0)", age: $0) }
        people[4].partner = people[0]
        people[6].partner = people[0]
        people[7].partner = people[1]
        func indexSQL() throws -> String? {
            let queue = try rawQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'value_index_1_8'")
            }
        }
        // A query on the reference makes the index without the bodies…
        #expect(database.fetch(QueryDescriptor<Person>(where: .references(\Person.partner, people[0]))).map(\.id) == [5, 7])
        #expect(try indexSQL()?.contains(", body)") == false)
        // …and the first inverse lookup makes it again, covering, with the same answers.
        #expect(people[0].referrers(through: \Person.partner).map(\.id) == [5, 7])
        #expect(try indexSQL()?.contains("pathbase_value(body, 8), body)") == true)
        people[8].partner = people[0]
        people[4].partner = people[1]
        #expect(people[0].referrers(through: \Person.partner).map(\.id) == [7, 9])
        #expect(people[1].referrers(through: \Person.partner).map(\.id) == [5, 8])
        #expect(database.fetch(QueryDescriptor<Person>(where: .references(\Person.partner, people[0]))).map(\.id) == [7, 9])
        database.close()
    }

    @Test("Inside a read or a batch no index is created, and queries still answer exactly")
    func queriesInsideTransactionsRunWithoutNewIndexes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("no-indexes.sqlite")
        let database = try SQLiteDatabase(path: path)
        for id in 1 ... 30 { Person.create(in: database, id: id, name: "P\(id)", age: id % 10) }
        let inRead = try database.read { database.fetch(QueryDescriptor<Person>(where: \.age == 3)).map(\.id) }
        #expect(inRead == [3, 13, 23])
        let inBatch = try database.batch {
            Person.create(in: database, id: 31, age: 3)
            return database.fetch(QueryDescriptor<Person>(where: \.age == 3)).map(\.id)
        }
        #expect(inBatch == [3, 13, 23, 31])
        #expect(try indexNames(at: path).isEmpty)
        // Outside a transaction the index is created, with the same answer.
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age == 3)).map(\.id) == [3, 13, 23, 31])
        #expect(try indexNames(at: path) == ["value_index_1_2"])
        database.close()
    }

    @Test("A read-only database queries without creating an index")
    func readOnlyDatabasesQueryWithoutIndexes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("read-only.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            for id in 1 ... 20 { Person.create(in: database, id: id, age: id) }
            database.close()
        }
        let readOnly = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        #expect(readOnly.fetch(QueryDescriptor<Person>(where: \.age > 18)).map(\.id) == [19, 20])
        readOnly.close()
        #expect(try indexNames(at: path).isEmpty)
    }
}
