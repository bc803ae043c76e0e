import Foundation
import GRDB
import GRDBSQLite
import Pathbase
@testable import PathbaseSQLite
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
        let queue = try rawQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: downgrade) }
        try queue.close()
    }

    /// Version 5: a row per current value in the table `current_values`, a trigger that
    /// moves replaced values into `superseded_records`, the statuses' partial index, and
    /// value indexes as partial indexes of `current_values` (Person's age declared, as a
    /// collection's would be).
    private static let versionFive = """
        CREATE TABLE current_values_v5 (
            model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
            time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
            type INTEGER NOT NULL, value,
            PRIMARY KEY (model, instance, property)
        ) WITHOUT ROWID;
        INSERT INTO current_values_v5 SELECT model, property, instance, time, counter, replica, type, value FROM current_values;
        DROP VIEW current_values;
        DROP TABLE instance_values;
        ALTER TABLE current_values_v5 RENAME TO current_values;
        CREATE TRIGGER current_value_superseded AFTER UPDATE ON current_values
        BEGIN
            INSERT OR IGNORE INTO superseded_records(model, property, instance, time, counter, replica, type, value)
            VALUES (old.model, old.property, old.instance, old.time, old.counter, old.replica, old.type, old.value);
        END;
        CREATE INDEX current_statuses ON current_values(model, instance, type, value, time, counter, replica) WHERE property = 0;
        CREATE INDEX value_index_1_2 ON current_values(type, value) WHERE model = 1 AND property = 2;
        PRAGMA user_version = 5;
        """

    /// Version 4: every record, current ones too, in one history table `records`, indexed
    /// by time; no `record_times`, no trigger.
    private static let versionFour =
        versionFive + """
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
    private static let versionThree =
        versionFour + """
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
        try makeOldFile(
            at: path,
            downgrade: Self.versionThree + """
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

        let queue = try rawQueue(path: path)
        let (version, members) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int.fetchOne(db, sql: "SELECT count(*) FROM list_members"))
        }
        try queue.close()
        #expect(version == Schema.formatVersion)
        #expect(members == 3)
    }

    /// Version 2: `list_members` kept by a trigger.
    private func makeVersionTwoFile(at path: String) throws {
        try makeOldFile(
            at: path,
            downgrade: Self.versionThree + """
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

        let queue = try rawQueue(path: path)
        let (version, triggers) = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'")))
        }
        try queue.close()
        #expect(version == Schema.formatVersion)
        #expect(triggers.isEmpty)
    }

    @Test("Opening a version 3 file rebuilds the value tables in instance order; values, history, queries and declared indexes survive")
    func migratesVersionThree() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("three.sqlite")
        try makeOldFile(at: path, downgrade: Self.versionThree)
        let recordsBefore: Int
        do {
            let queue = try rawQueue(path: path)
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

        let queue = try rawQueue(path: path)
        let (version, primaryKey, indexes) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('instance_values') WHERE pk > 0 ORDER BY pk"),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = 'instance_values'"))
            )
        }
        try queue.close()
        #expect(version == Schema.formatVersion)
        #expect(primaryKey == ["model", "instance"])
        // The declared index comes back; the one of the inverse lookup above is new.
        #expect(indexes == ["value_index_1_2", "value_index_1_8"])
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
        let queue = try rawQueue(path: path)
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

        let check = try rawQueue(path: path)
        let (version, tables, superseded) = try check.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM superseded_records")
            )
        }
        try check.close()
        #expect(version == Schema.formatVersion)
        #expect(!tables.contains("records") && tables.isSuperset(of: ["instance_values", "superseded_records", "record_times"]))
        #expect(superseded == 2) // Bob's ages 40 and 41
    }

    @Test("Opening a version 5 file packs its current values into instance bodies: values, history, records after a time, queries on a declared index and the clock survive", arguments: [true, false])
    func migratesVersionFive(keepsHistory: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("five.sqlite")
        let options = SQLiteDatabase.Options(keepsHistory: keepsHistory)
        do {
            let database = try SQLiteDatabase(path: path, options: options)
            Person.create(in: database, id: 1, name: "Alice", age: 30)
            let bob = Person.create(in: database, id: 2, name: "Bob", age: 40)
            Person.create(in: database, id: 3, name: "Carol", age: 50, partner: bob, friends: [bob])
            bob.age = 41
            database.close()
        }
        let recordsBefore: [Pathbase.Record]
        do {
            let database = try SQLiteDatabase(path: path, options: options)
            recordsBefore = database.records(after: nil, limit: nil)
            database.close()
        }
        let queue = try rawQueue(path: path)
        // Without history, format 5 kept no times: `current_values` was indexed by time.
        let downgrade =
            Self.versionFive
            + (keepsHistory
                ? ""
                : """
                DELETE FROM record_times;
                CREATE INDEX current_values_by_time ON current_values(time, counter, replica, model, instance, property);
                """)
        try queue.writeWithoutTransaction { db in try db.execute(sql: downgrade) }
        try queue.close()

        let database = try SQLiteDatabase(path: path, options: options)
        let after = database.records(after: nil, limit: nil)
        #expect(after.map(\.path) == recordsBefore.map(\.path))
        #expect(after.map(\.timestamp) == recordsBefore.map(\.timestamp))
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(bob.age == 41)
        #expect(bob.referrers(through: \Person.friends).map(\.name) == ["Carol"])
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 40, sortBy: \.age)).map(\.name) == ["Bob", "Carol"])
        #expect(database.history(of: bob.path(of: .age), as: Int.self).map(\.value) == (keepsHistory ? [40, 41] : [41]))
        bob.age = 42
        let newest = try #require(database.records(after: nil, limit: nil).last)
        #expect(newest.path == bob.path(of: .age) && newest.timestamp > recordsBefore.last?.timestamp ?? .zero)
        #expect(try database.checkIntegrity().isEmpty)
        database.close()

        let check = try rawQueue(path: path)
        let (version, tables, indexes, plan) = try check.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")),
                try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = 'instance_values'")),
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT instance FROM instance_values WHERE model = 1 AND pathbase_type(body, 2) = 2 AND pathbase_value(body, 2) >= 40")
                    .map { $0["detail"] as String? ?? "" }.joined()
            )
        }
        try check.close()
        #expect(version == Schema.formatVersion)
        #expect(!tables.contains("current_values") && tables.contains("instance_values"))
        // The declared index, and the one of the inverse lookup above.
        #expect(indexes.contains("value_index_1_2"))
        #expect(plan.contains("value_index_1_2"))
    }

    @Test(
        "Opening a version 7 file rewrites its bodies and runs against a base: values, history, records after a time, a value index (made again) and the clock survive, in fewer bytes",
        arguments: [true, false])
    func migratesVersionSeven(keepsHistory: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("seven.sqlite")
        let options = SQLiteDatabase.Options(keepsHistory: keepsHistory)
        let recordsBefore: [Pathbase.Record]
        do {
            let database = try SQLiteDatabase(path: path, options: options)
            try database.batch {
                for id in 1 ... 40 { Person.create(in: database, id: id, name: "P\(id)", age: id) }
            }
            let bob = try #require(database.active(id: 2, of: Person.self))
            bob.age = 41
            _ = database.fetch(QueryDescriptor<Person>(where: \.age >= 40, sortBy: \.age))
            recordsBefore = database.records(after: nil, limit: nil)
            database.close()
        }
        func storedBytes() throws -> Int {
            let queue = try rawQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT (SELECT sum(length(body)) FROM instance_values) + (SELECT coalesce(sum(length(records)), 0) FROM record_runs)") ?? 0
            }
        }
        let queue = try rawQueue(path: path)
        let indexes = try queue.write { db in try downgradeToFormatSeven(db) }
        try queue.close()
        // The value index of the query above, as format 7 had it.
        #expect(indexes.count == 1)
        try restoreIndexes(indexes, of: path)
        let legacyBytes = try storedBytes()

        let database = try SQLiteDatabase(path: path, options: options)
        let after = database.records(after: nil, limit: nil)
        #expect(after.map(\.path) == recordsBefore.map(\.path))
        #expect(after.map(\.timestamp) == recordsBefore.map(\.timestamp))
        #expect(after.map { "\($0.value)" } == recordsBefore.map { "\($0.value)" })
        let bob = try #require(database.active(id: 2, of: Person.self))
        #expect(bob.age == 41 && bob.name == "P2")
        #expect(database.fetch(QueryDescriptor<Person>(where: \.age >= 39, sortBy: \.age)).map(\.name) == ["P39", "P40", "P2"])
        #expect(database.history(of: bob.path(of: .age), as: Int.self).map(\.value) == (keepsHistory ? [2, 41] : [41]))
        bob.age = 42
        let newest = try #require(database.records(after: nil, limit: nil).last)
        #expect(newest.path == bob.path(of: .age) && newest.timestamp > recordsBefore.last?.timestamp ?? .zero)
        #expect(try database.checkIntegrity().isEmpty)
        database.close()
        #expect(try storedBytes() < legacyBytes)
        let check = try rawQueue(path: path)
        let (version, plan) = try check.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT instance FROM instance_values WHERE model = \(Person.modelId) AND pathbase_type(body, 2) = 2 AND pathbase_value(body, 2) >= 40")
                    .map { $0["detail"] as String? ?? "" }.joined()
            )
        }
        try check.close()
        #expect(version == Schema.formatVersion)
        // The value index came back, read from the new bodies (the query above used it).
        #expect(plan.contains("value_index_\(Person.modelId)_2"))
    }

    @Test("A version 7 file opened read-only is refused with cannotOpen naming its format, and left as it was; opened for writing it migrates")
    func readOnlyRefusesOlderFormat() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("seven-read-only.sqlite")
        try createAdaAndBob(at: path)
        let queue = try rawQueue(path: path)
        try queue.write { db in _ = try downgradeToFormatSeven(db) }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let error = #expect(throws: SQLiteDatabaseError.self) {
            _ = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        }
        // README: "a file opened read-only must be of the current format".
        guard case .cannotOpen(path, let reason)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("older storage format 7"), "\(reason)")
        #expect(reason.contains("format \(Schema.formatVersion)"), "\(reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let database = try SQLiteDatabase(path: path)
        #expect(database.get(id: 2, of: Person.self)?.name == "Bob")
        database.close()
        let reader = try SQLiteDatabase(path: path, options: .init(readOnly: true))
        #expect(reader.get(id: 2, of: Person.self)?.name == "Bob")
        reader.close()
    }

    @Test("A version 7 file with a damaged body migrates: that body keeps its bytes and reads as damaged, the others read")
    func migratesVersionSevenWithDamagedBody() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("damaged.sqlite")
        try createAdaAndBob(at: path)
        let queue = try rawQueue(path: path)
        try queue.write { db in
            try downgradeToFormatSeven(db)
            // An entry of property 1 cut short, as format 7 wrote entries.
            try db.execute(sql: "UPDATE instance_values SET body = x'0204ffffffff' WHERE model = ? AND instance = 1", arguments: [Person.modelId])
        }
        try queue.close()

        let database = try SQLiteDatabase(path: path, options: .init(errorHandler: { _ in }))
        #expect(database.get(id: 2, of: Person.self)?.name == "Bob")
        #expect(try database.read { database.all(of: Person.self).map(\.name) } == ["Bob"])
        #expect(
            try database.checkIntegrity().map(\.description) == [
                "instance_values \(Path(model: Person.modelId, instance: 1, property: 0)): a malformed instance body: its current values can't be read"
            ])
        // A damaged body is SQLite's "corrupt" result ("The database file is damaged; run `pathbase check`").
        let damagedRead = #expect(throws: SQLiteDatabaseError.self) {
            let _: Timestamped<String>? = try database.fetch(Path(model: Person.modelId, instance: 1, property: 1))
        }
        #expect(damagedRead?.sqliteCode == SQLITE_CORRUPT, "\(String(describing: damagedRead))")
        database.close()
        let check = try rawQueue(path: path)
        let body = try check.read { db in try Data.fetchOne(db, sql: "SELECT body FROM instance_values WHERE model = ? AND instance = 1", arguments: [Person.modelId]) }
        try check.close()
        // The old bytes, behind the prefix that reads as damaged.
        #expect(body.map { Array($0.suffix(6)) } == [0x02, 0x04, 0xff, 0xff, 0xff, 0xff])
        #expect(body?.count == 18 + 6)
    }
}
