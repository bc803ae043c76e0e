import Foundation
import GRDB
import GRDBSQLite
import Pathbase

/// The tables of a Pathbase SQLite file, and its format version.
///
/// - `instance_values`: one row per instance, (model, instance, body): its status and the
///   newest record of each of its properties, packed in the body (the format is in
///   `Sources/CPathbaseBodies/bodies.c`). What `get` reads.
/// - `current_values`: a view of the same records, a row per path (model, property,
///   instance, time, counter, replica, type, value), through the table-valued function
///   `pathbase_entries(body)`. Statements that are not on a hot path read it.
/// - `superseded_records`: every other record, when the file keeps history: the values a
///   path held before its current one, and records that arrived older than it.
/// - `record_runs` (format 7): with history, one row per run of a batch's records (up to
///   ``PendingWrites/maximumRunRecords``): their paths and timestamps, in timestamp order
///   (``RecordRun``; format 8 writes each against the one before, and indexes a run's
///   last time beside its first, so that paging skips the runs before the cursor).
/// - `record_times`: a row per record, in the order `records(after:)` returns them: without
///   history, every current record; with history, the records written before format 7.
/// - `value_types`: the Swift type names of JSON-encoded `Codable` values (see ``ValueTag``).
/// - `pathbase_meta`: settings fixed at creation (`keepsHistory`).
///
/// A record is stored once, with its value: in its instance's body while it is its path's
/// newest, in `superseded_records` once a newer one replaced it. A write reads the bodies
/// it changes, merges its records into them newest-wins per property, and writes each body
/// once (``PendingWrites``). Format 5 kept a row per current value: listing a model read
/// six rows per instance of five properties, where a fixed-schema table reads one.
///
/// SQL reads bodies through functions every connection registers
/// (`pathbase_register_bodies`): `pathbase_type(body, P)`, `pathbase_value(body, P)` and
/// the parts of a value's timestamp. A value index is an expression index
/// `value_index_M_P` on `instance_values(pathbase_type(body, P), pathbase_value(body, P))`
/// for one model, created for a collection's declared indexes (which hold the bodies too:
/// covering indexes) and, for models, the first time a query or an inverse lookup needs
/// one; writes of properties nobody queries pay for no index. `list_members` holds one row per element of every current `[Int]` value
/// (reference lists), by (model, property, element, instance), for inverse lookups of
/// `@ReferenceList`s. Writing a list replaces the path's rows; a path whose list was
/// replaced by a value of another type keeps its old rows, so every read of `list_members`
/// also checks that the current value is still a list.
///
/// The file is marked with ``applicationId`` (`PRAGMA application_id`) and
/// ``formatVersion`` (`PRAGMA user_version`). A file with a higher version throws
/// ``SQLiteDatabaseError/newerFormat(path:found:supported:)``; older ones are migrated when
/// opened for writing (``migrate(_:from:keepsHistory:)``).
enum Schema {

    /// 'PBDB': identifies a Pathbase file among SQLite databases.
    static let applicationId: Int32 = 0x5042_4442

    /// The storage format this version writes and reads. Raise it for any incompatible
    /// change of tables or value encoding, and migrate older files on open.
    static let formatVersion = 8

    static let metaTable = "pathbase_meta"

    /// The columns of a record, in the order the value tables declare them.
    static let recordColumnNames = ["model", "property", "instance", "time", "counter", "replica", "type", "value"]

    /// ``recordColumnNames`` as a column list.
    static let recordColumns = recordColumnNames.joined(separator: ", ")

    /// The columns of `record_times`, in its primary key's order.
    static let recordTimeColumns = "time, counter, replica, model, instance, property"

    /// SQL that holds when `table` has the record whose path and timestamp columns the
    /// enclosing statement names by `column` (a record column's name → its expression).
    static func holdsRecord(_ table: String, sameAs column: (String) -> String) -> String {
        let matches = ["model", "instance", "property", "time", "counter", "replica"]
            .map { "held.\($0) = \(column($0))" }
        return "EXISTS (SELECT 1 FROM \(table) AS held WHERE \(matches.joined(separator: " AND ")))"
    }

    /// The name of the value index of one (model, property).
    static func valueIndexName(model: ModelKey, property: PropertyKey) -> String {
        "value_index_\(model)_\(property)"
    }

    /// Drops the indexes made on `instance_values` (the value indexes), whose expressions
    /// read bodies, and returns their SQL to make them again: a rewrite of every body in
    /// another layout must not go through them.
    static func dropInstanceValueIndexes(_ db: GRDB.Database) throws -> [String] {
        let indexes = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'instance_values' AND sql IS NOT NULL")
        for index in indexes { try db.execute(sql: "DROP INDEX \((index[0] as String).quotedDatabaseIdentifier)") }
        return indexes.map { $0[1] as String }
    }

    /// The statement creating the value index of one (model, property). Ids are trusted
    /// integers, written into the text: SQLite uses an index on expressions only for
    /// queries that name the same expressions, and a partial one only for queries whose
    /// conditions name the same literals.
    ///
    /// `covering` (a collection's declared index): the index holds each body too, so a
    /// query that starts from it reads its matches' values from the index, without a
    /// seek into `instance_values` per match (a third of an indexed query's time). It
    /// costs about one more copy of the model's bodies per declared index; the indexes
    /// made for models' queries, which nobody declared, don't.
    static func createValueIndexSQL(model: ModelKey, property: PropertyKey, covering: Bool = false) -> String {
        let value = valueExpressions(property: property, body: "body")
        return """
            CREATE INDEX IF NOT EXISTS \(valueIndexName(model: model, property: property))
            ON instance_values(\(value.type), \(value.value)\(covering ? ", body" : "")) WHERE model = \(model)
            """
    }

    /// The SQL of one property's type tag and value in a body column (`body` names it).
    static func valueExpressions(property: PropertyKey, body: String) -> (type: String, value: String) {
        ("pathbase_type(\(body), \(property))", "pathbase_value(\(body), \(property))")
    }

    /// Creates the tables of a new file; safe to run on a file where they exist.
    static func create(in db: GRDB.Database, keepsHistory: Bool) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS pathbase_meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS value_types (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE
                );
                """)
        try createInstanceValues(in: db)
        try createHistoryTables(in: db)
        try createListMembers(in: db)
        try db.execute(sql: "INSERT OR IGNORE INTO pathbase_meta(key, value) VALUES ('keepsHistory', ?)", arguments: [keepsHistory])
        try db.execute(sql: "PRAGMA application_id = \(applicationId)")
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// `instance_values` and its view `current_values`.
    private static func createInstanceValues(in db: GRDB.Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS instance_values (
                    model INTEGER NOT NULL,
                    instance INTEGER NOT NULL,
                    body BLOB NOT NULL,
                    PRIMARY KEY (model, instance)
                ) WITHOUT ROWID;
                CREATE VIEW IF NOT EXISTS current_values AS \(currentValuesSelect);
                """)
    }

    /// The rows of the `current_values` view: every entry of every body, as a record.
    static let currentValuesSelect = """
        SELECT i.model AS model, e.property AS property, i.instance AS instance,
            e.time AS time, e.counter AS counter, e.replica AS replica, e.type AS type, e.value AS value
        FROM instance_values AS i, pathbase_entries(i.body) AS e
        """

    /// A table of records (the columns of ``recordColumns``) with a primary key.
    private static func valueTableSQL(_ name: String, primaryKey: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
            model INTEGER NOT NULL,
            property INTEGER NOT NULL,
            instance INTEGER NOT NULL,
            time INTEGER NOT NULL,
            counter INTEGER NOT NULL,
            replica INTEGER NOT NULL,
            type INTEGER NOT NULL,
            value,
            PRIMARY KEY (\(primaryKey))
        ) WITHOUT ROWID
        """
    }

    /// `superseded_records`, `record_times` and `record_runs` (the first and last empty in a
    /// file without history).
    private static func createHistoryTables(in db: GRDB.Database) throws {
        try db.execute(sql: valueTableSQL("superseded_records", primaryKey: "model, instance, property, time, counter, replica"))
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS record_times (
                    time INTEGER NOT NULL,
                    counter INTEGER NOT NULL,
                    replica INTEGER NOT NULL,
                    model INTEGER NOT NULL,
                    instance INTEGER NOT NULL,
                    property INTEGER NOT NULL,
                    PRIMARY KEY (\(recordTimeColumns))
                ) WITHOUT ROWID
                """)
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS record_runs (
                    time INTEGER NOT NULL,
                    counter INTEGER NOT NULL,
                    replica INTEGER NOT NULL,
                    end_time INTEGER NOT NULL,
                    records BLOB NOT NULL
                );
                CREATE INDEX IF NOT EXISTS record_runs_start ON record_runs(time, counter, replica, end_time);
                """)
    }

    /// The list members (format version 2 and later).
    private static func createListMembers(in db: GRDB.Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS list_members (
                    model INTEGER NOT NULL,
                    property INTEGER NOT NULL,
                    member INTEGER NOT NULL,
                    instance INTEGER NOT NULL,
                    PRIMARY KEY (model, property, member, instance)
                ) WITHOUT ROWID;
                """)
    }

    /// Brings a file of an older format version to ``formatVersion``, inside the opening
    /// transaction: version 1 gets the list members, filled from its current values;
    /// version 2 loses the trigger that kept them; versions up to 3 get their value tables
    /// rebuilt in the (model, instance, property) order; versions up to 4 move their history
    /// table's records into `record_times`, and into `superseded_records` those that are not
    /// current; versions up to 5 pack their current values into instance bodies (value
    /// indexes of declared collection indexes come back on the bodies; models' value indexes
    /// come back when queries need them); versions up to 6 get `record_runs`, their
    /// `record_times` kept as it is; versions 6 and 7 get their bodies, and version 7 its
    /// runs, rewritten against a base (format 8).
    static func migrate(_ db: GRDB.Database, from version: Int, keepsHistory: Bool) throws {
        guard version < formatVersion else { return }
        // `collection_index_M_P` (format 3) and `value_index_M_P` (formats 4 and 5).
        let declared = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'index' AND (name LIKE 'collection_index_%' OR name LIKE 'value_index_%')
                """
        )
        .compactMap { name -> (ModelKey, PropertyKey)? in
            let parts = name.split(separator: "_").suffix(2)
            guard parts.count == 2, let model = Int(parts[parts.startIndex]), let property = Int(parts[parts.startIndex + 1]) else { return nil }
            return (model, property)
        }
        if version < 2 {
            try createListMembers(in: db)
            let lists = try Row.fetchAll(db, sql: "SELECT model, property, instance, value FROM current_values WHERE type = ?", arguments: [ValueTag.integerArray.rawValue])
            for row in lists {
                let bytes: Data = row[3] ?? Data()
                for member in ListMembers.decode(bytes) {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO list_members(model, property, member, instance) VALUES (?, ?, ?, ?)",
                        arguments: [row[0] as Int64, row[1] as Int64, member, row[2] as Int64]
                    )
                }
            }
        }
        try db.execute(sql: "DROP TRIGGER IF EXISTS list_members_replaced")
        if version < 4 {
            try db.execute(sql: valueTableSQL("current_values_v4", primaryKey: "model, instance, property"))
            try db.execute(
                sql: """
                    INSERT INTO current_values_v4(\(recordColumns)) SELECT \(recordColumns) FROM current_values;
                    DROP TABLE current_values;
                    ALTER TABLE current_values_v4 RENAME TO current_values;
                    """)
        }
        if version < 5 {
            // Format 4's `records` held every record, the current ones too.
            try createHistoryTables(in: db)
            if keepsHistory {
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO record_times(\(recordTimeColumns)) SELECT \(recordTimeColumns) FROM records;
                        INSERT OR IGNORE INTO record_times(\(recordTimeColumns)) SELECT \(recordTimeColumns) FROM current_values;
                        INSERT OR IGNORE INTO superseded_records(\(recordColumns))
                        SELECT \(recordColumns) FROM records r
                        WHERE NOT \(holdsRecord("current_values") { "r.\($0)" });
                        """)
            }
            try db.execute(sql: "DROP TABLE IF EXISTS records")
        }
        if version < 6 {
            // Format 5's table of current values becomes bodies; without history, its times
            // go to `record_times`, which then holds the current records' times.
            try db.execute(
                sql: """
                    DROP TRIGGER IF EXISTS current_value_superseded;
                    ALTER TABLE current_values RENAME TO current_values_v5;
                    """)
            try createInstanceValues(in: db)
            try db.execute(
                sql: """
                    INSERT INTO instance_values(model, instance, body)
                    SELECT model, instance, pathbase_pack(property, time, counter, replica, type, value)
                    FROM current_values_v5 GROUP BY model, instance;
                    """)
            if !keepsHistory {
                try db.execute(sql: "INSERT OR IGNORE INTO record_times(\(recordTimeColumns)) SELECT \(recordTimeColumns) FROM current_values_v5")
            }
            try db.execute(sql: "DROP TABLE current_values_v5")
            for (model, property) in declared {
                try db.execute(sql: createValueIndexSQL(model: model, property: property))
            }
        }
        if (6 ... 7).contains(version) {
            // Format 8 writes a body's timestamps against a base it holds once. The value
            // indexes can't read the old bodies: they go, and come back on the new ones.
            let indexes = try dropInstanceValueIndexes(db)
            try db.execute(sql: "UPDATE instance_values SET body = pathbase_body_upgrade(body)")
            for index in indexes { try db.execute(sql: index) }
        }
        if version == 7 {
            // Format 8 writes a run's records against the one before, and keeps its last
            // time beside its first, in the index too.
            try db.execute(
                sql: """
                    DROP INDEX record_runs_start;
                    ALTER TABLE record_runs ADD COLUMN end_time INTEGER NOT NULL DEFAULT 0;
                    """)
            try upgradeRuns(in: db)
        }
        // Format 7 adds `record_runs`; the times in `record_times` stay and are read with it.
        try createHistoryTables(in: db)
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// Rewrites every run of a format 7 file as format 8 writes it.
    private static func upgradeRuns(in db: GRDB.Database) throws {
        let runs = try Row.fetchAll(db, sql: "SELECT rowid, time, records FROM record_runs")
        for row in runs {
            let bytes: Data = row[2] ?? Data()
            guard let records = bytes.withUnsafeBytes({ RecordRun.decodeFormat7($0, firstTime: row[1]) }) else {
                throw SQLiteDatabaseError.sqlite(code: SQLITE_CORRUPT, message: "a malformed run of records")
            }
            try db.execute(
                sql: "UPDATE record_runs SET records = ?, end_time = ? WHERE rowid = ?",
                arguments: [Data(RecordRun.encode(records[...])), records.last?.timestamp.time ?? (row[1] as Int64), row[0] as Int64]
            )
        }
    }

    /// The `keepsHistory` setting stored in the file.
    static func keepsHistory(in db: GRDB.Database) throws -> Bool? {
        try Bool.fetchOne(db, sql: "SELECT value FROM pathbase_meta WHERE key = 'keepsHistory'")
    }

    /// The tables every Pathbase file of a format version has.
    static func tables(ofVersion version: Int) -> Set<String> {
        let first: Set<String> = ["pathbase_meta", "value_types", version >= 6 ? "instance_values" : "current_values"]
        let history: Set<String> =
            version >= 7
            ? ["superseded_records", "record_times", "record_runs"]
            : version >= 5 ? ["superseded_records", "record_times"] : ["records"]
        return first.union(history).union(version >= 2 ? ["list_members"] : [])
    }
}
