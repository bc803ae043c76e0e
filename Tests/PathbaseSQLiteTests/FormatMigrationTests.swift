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

    /// Version 4: every record, current ones too, in one history table `records`, indexed
    /// by time; no `record_times`, no trigger.
    private static let versionFour = """
        DROP TRIGGER current_value_superseded;
        CREATE TABLE records (
            model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
            time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
            type INTEGER NOT NULL, value,
            PRIMARY KEY (model, instance, property, time, counter, replica)
        ) WITHOUT ROWID;
        INSERT INTO records SELECT model, property, instance, time, counter, replica, type, value FROM superseded_records;
        INSERT INTO records SELECT model, property, instance, time, counter, replica, type, value FROM current_values;
        DROP TABLE superseded_records;
        DROP TABLE record_times;
        CREATE INDEX records_by_time ON records(time, counter, replica, model, instance, property);
        PRAGMA user_version = 4;
        """

    /// Version 3: the value tables ordered (model, property, instance), every current
    /// value in one value index, a declared collection index under its old name.
    private static let versionThree = versionFour + """
        CREATE TABLE current_values_v3 (
            model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
            time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
            type INTEGER NOT NULL, value,
            PRIMARY KEY (model, property, instance)
        ) WITHOUT ROWID;
        CREATE TABLE records_v3 (
            model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
            time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
            type INTEGER NOT NULL, value,
            PRIMARY KEY (model, property, instance, time, counter, replica)
        ) WITHOUT ROWID;
        INSERT INTO current_values_v3 SELECT model, property, instance, time, counter, replica, type, value FROM current_values;
        INSERT INTO records_v3 SELECT model, property, instance, time, counter, replica, type, value FROM records;
        DROP TABLE current_values;
        DROP TABLE records;
        ALTER TABLE current_values_v3 RENAME TO current_values;
        ALTER TABLE records_v3 RENAME TO records;
        CREATE INDEX records_by_time ON records(time, counter, replica, model, instance, property);
        CREATE INDEX current_values_by_value ON current_values(model, property, type, value);
        CREATE INDEX collection_index_1_2 ON current_values(type, value) WHERE model = 1 AND property = 2;
        PRAGMA user_version = 3;
        """

    /// Version 1: no value index, no list members.
    private func makeVersionOneFile(at path: String) throws {
        try makeOldFile(at: path, downgrade: Self.versionThree + """
            DROP TABLE list_members;
            DROP INDEX current_values_by_value;
            DROP INDEX collection_index_1_2;
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
        #expect(version == 5)
        #expect(members == 3)
    }

    /// Version 2: `list_members` kept by a trigger.
    private func makeVersionTwoFile(at path: String) throws {
        try makeOldFile(at: path, downgrade: Self.versionThree + """
            DROP INDEX collection_index_1_2;
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
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'")))
        }
        try queue.close()
        #expect(version == 5)
        // Only the history's triggers.
        #expect(triggers == ["current_value_superseded"])
    }

    @Test("Opening a version 3 file rebuilds the value tables in instance order; values, history, queries and declared indexes survive")
    func migratesVersionThree() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("three.sqlite")
        try makeOldFile(at: path, downgrade: Self.versionThree)
        let recordsBefore: Int
        do {
            let queue = try DatabaseQueue(path: path)
            recordsBefore = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM records") ?? 0 }
            try queue.close()
        }

        let database = try SQLiteDatabase(path: path)
        let alice = try #require(database.active(id: 1, of: Person.self))
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(database.all(of: Person.self).map(\.name).sorted() == ["Alice", "Bob", "Carol", "Dan"])
        #expect(bob.referrers(through: \Person.friends).map(\.name) == ["Carol", "Dan"])
        #expect(alice.referrers(through: \Person.partner).map(\.name) == ["Carol"])
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 40, sortBy: \.age)).map(\.name) == ["Bob", "Carol"])
        #expect(database.records(after: nil).count == recordsBefore)
        bob.age = 41
        #expect(database.history(of: bob.path(of: .age), as: Int.self).map(\.value) == [40, 41])
        database.close()

        let queue = try DatabaseQueue(path: path)
        let (version, primaryKey, indexes) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('current_values') WHERE pk > 0 ORDER BY pk"),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
            )
        }
        try queue.close()
        #expect(version == 5)
        #expect(primaryKey == ["model", "instance", "property"])
        #expect(indexes.contains("value_index_1_2"))
        #expect(!indexes.contains("current_values_by_value") && !indexes.contains("collection_index_1_2"))
        #expect(indexes.contains("current_statuses") && !indexes.contains("records_by_time"))
    }

    @Test("Opening a version 4 file keeps every record once: history, records after a time and the clock survive; the history table is gone")
    func migratesVersionFour() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("four.sqlite")
        // Bob's age changes once before the downgrade: one superseded record.
        do {
            let database = try SQLiteDatabase(path: path)
            Person.create(in: database, id: 1, name: "Alice", age: 30)
            let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
            bob.age = 41
            database.close()
        }
        let recordsBefore: [Pathbase.Record]
        do {
            let database = try SQLiteDatabase(path: path)
            recordsBefore = database.records(after: nil, limit: nil)
            database.close()
        }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: Self.versionFour) }
        try queue.close()

        let database = try SQLiteDatabase(path: path)
        let after = database.records(after: nil, limit: nil)
        #expect(after.map(\.path) == recordsBefore.map(\.path))
        #expect(after.map(\.timestamp) == recordsBefore.map(\.timestamp))
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(database.history(of: bob.path(of: .age), as: Int.self).map(\.value) == [40, 41])
        bob.age = 42
        #expect(database.history(of: bob.path(of: .age), as: Int.self).map(\.value) == [40, 41, 42])
        // The clock continues after the newest migrated record.
        let newest = try #require(database.records(after: nil, limit: nil).last)
        #expect(newest.path == bob.path(of: .age) && newest.timestamp > recordsBefore.last?.timestamp ?? .zero)
        database.close()

        let check = try DatabaseQueue(path: path)
        let (version, tables, superseded) = try check.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM superseded_records")
            )
        }
        try check.close()
        #expect(version == 5)
        #expect(!tables.contains("records") && tables.isSuperset(of: ["superseded_records", "record_times"]))
        #expect(superseded == 2) // Bob's ages 40 and 41
    }
}
