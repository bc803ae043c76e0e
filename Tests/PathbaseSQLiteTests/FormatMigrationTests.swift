import Foundation
import GRDB
import Pathbase
import PathbaseSQLite
import Testing

@Suite("SQLiteDatabase: files of older format versions are migrated on open")
struct FormatMigrationTests {

    /// A file of the current version with four people, then rewritten by `downgrade` into
    /// what an older version wrote.
    private func makeOldFile(at path: String, downgrade: String) throws {
        do {
            let database = try SQLiteDatabase(path: path)
            let alice = Person.create(in: database, id: 1, name: "Alice", age: 30)
            let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
            Person.create(in: database, id: 3, name: "Carol", age: 50, partner: alice, friends: [alice, bob])
            Person.create(in: database, id: 4, name: "Dan", friends: [bob])
            database.close()
        }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: downgrade) }
        try queue.close()
    }

    /// Version 1: no value index, no list members.
    private func makeVersionOneFile(at path: String) throws {
        try makeOldFile(at: path, downgrade: """
            DROP TABLE list_members;
            DROP INDEX current_values_by_value;
            PRAGMA user_version = 1;
            """)
    }

    @Test("Opening a version 1 file adds the query indexes; values, lists and inverse lookups work")
    func migratesVersionOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try makeVersionOneFile(at: path)

        let database = try SQLiteDatabase(path: path)
        let alice = try #require(database.active(id: 1, of: Person.self))
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(alice.referrers(through: \Person.friends).map(\.name) == ["Carol"])
        #expect(bob.referrers(through: \Person.friends).map(\.name) == ["Carol", "Dan"])
        #expect(alice.referrers(through: \Person.partner).map(\.name) == ["Carol"])
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 40, sortBy: \.age)).map(\.name) == ["Bob", "Carol"])
        database.close()

        let queue = try DatabaseQueue(path: path)
        let (version, members) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int.fetchOne(db, sql: "SELECT count(*) FROM list_members"))
        }
        try queue.close()
        #expect(version == 3)
        #expect(members == 3)
    }

    /// Version 2: `list_members` kept by a trigger.
    private func makeVersionTwoFile(at path: String) throws {
        try makeOldFile(at: path, downgrade: """
            CREATE TRIGGER list_members_replaced AFTER UPDATE OF type ON current_values
            WHEN old.type = 18 AND new.type <> 18
            BEGIN
                DELETE FROM list_members
                WHERE model = old.model AND property = old.property AND instance = old.instance;
            END;
            PRAGMA user_version = 2;
            """)
    }

    @Test("Opening a version 2 file drops the list trigger; a list replaced by another type stops referring")
    func migratesVersionTwo() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("two.sqlite")
        try makeVersionTwoFile(at: path)

        let database = try SQLiteDatabase(path: path)
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(bob.referrers(through: \Person.friends).map(\.name) == ["Carol", "Dan"])
        let carol = try #require(database.active(id: 3, of: Person.self))
        // Carol's friends become a value of another type: she no longer refers to Bob.
        database.set("not a list", for: carol.path(of: 9))
        #expect(bob.referrers(through: \Person.friends).map(\.name) == ["Dan"])
        #expect(database.fetch(QueryDescriptor<Person>(where: .references(\.friends, bob))).map(\.name) == ["Dan"])
        #expect(database.fetch(QueryDescriptor<Person>(where: !.references(\.friends, bob))).map(\.name) == ["Alice", "Bob", "Carol"])
        database.close()

        let queue = try DatabaseQueue(path: path)
        let (version, triggers) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"))
        }
        try queue.close()
        #expect(version == 3)
        #expect(triggers == 0)
    }
}
