import Foundation
import GRDB
import Pathbase

/// The tables of a Pathbase SQLite file, and its format version.
///
/// - `current_values`: the newest record of every path — what `get` reads.
/// - `superseded_records`: every other record, when the file keeps history: the values a
///   path held before its current one, and records that arrived older than it.
/// - `record_times`: the timestamp and path of every record (current or superseded), in
///   the order `records(after:)` returns them, when the file keeps history.
/// - `value_types`: the Swift type names of JSON-encoded `Codable` values (see ``ValueTag``).
/// - `pathbase_meta`: settings fixed at creation (`keepsHistory`).
///
/// A record is stored once, with its value: in `current_values` while it is its path's
/// newest, in `superseded_records` once a newer one replaced it (format 4 also kept every
/// current record in its history table, so creating an object wrote each value twice, and
/// indexed that table by time). A trigger on `current_values` moves the row an update
/// replaces into `superseded_records`; a record older than the current one (a sync pull,
/// for example) is written there by a statement of its own. The history of a path is its
/// superseded records followed by its current one. `record_times` gets every record's
/// time and path as it is written; it is only ever appended to (pruning aside), so a new
/// record lands on its last page.
///
/// Both value tables are `WITHOUT ROWID` with the path in the primary key, ordered (model,
/// instance, property): the values of one instance are neighbours, so writing an object
/// dirties one leaf page, reading an object is one short range, and listing a model is one
/// range scan. A point read is one b-tree descent without a rowid indirection. Without
/// history, `current_values` is indexed by timestamp then path (`current_values_by_time`)
/// for `records(after:)` and the clock's start.
///
/// `current_statuses` is a partial index of the instance statuses (property 0), so listing
/// a model's instances reads only their statuses. Queries (see ``SQLiteDatabase`` queries):
/// a value index is a partial index `value_index_M_P` over the current values of one
/// (model, property), created for a collection's declared indexes and, for models, the
/// first time a query or an inverse lookup needs one; writes of properties nobody queries
/// pay for no index. `list_members` holds one row per element of every current `[Int]`
/// value (reference lists), by (model, property, element, instance), for inverse lookups of
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
    static let formatVersion = 5

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

    /// The statement creating the value index of one (model, property). Ids are trusted
    /// integers, written into the text: SQLite uses a partial index only for queries whose
    /// conditions name the same literals.
    static func createValueIndexSQL(model: ModelKey, property: PropertyKey) -> String {
        """
        CREATE INDEX IF NOT EXISTS \(valueIndexName(model: model, property: property))
        ON current_values(type, value) WHERE model = \(model) AND property = \(property)
        """
    }

    /// Creates the tables of a new file; safe to run on a file where they exist.
    static func create(in db: GRDB.Database, keepsHistory: Bool) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS pathbase_meta (
                key TEXT PRIMARY KEY NOT NULL,
                value
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS value_types (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE
            );
            """)
        try db.execute(sql: valueTableSQL("current_values", primaryKey: "model, instance, property"))
        try createHistoryTables(in: db)
        try createIndexesAndTriggers(in: db, keepsHistory: keepsHistory)
        try createListMembers(in: db)
        try db.execute(sql: "INSERT OR IGNORE INTO pathbase_meta(key, value) VALUES ('keepsHistory', ?)", arguments: [keepsHistory])
        try db.execute(sql: "PRAGMA application_id = \(applicationId)")
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

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

    /// `superseded_records` and `record_times`; empty in a file without history.
    private static func createHistoryTables(in db: GRDB.Database) throws {
        try db.execute(sql: valueTableSQL("superseded_records", primaryKey: "model, instance, property, time, counter, replica"))
        try db.execute(sql: """
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
    }

    /// The indexes of `current_values`, and with history the trigger that keeps the
    /// replaced records.
    private static func createIndexesAndTriggers(in db: GRDB.Database, keepsHistory: Bool) throws {
        if keepsHistory {
            // An upsert that updates fires it; one that inserts does not.
            try db.execute(sql: """
                CREATE TRIGGER IF NOT EXISTS current_value_superseded AFTER UPDATE ON current_values
                BEGIN
                    INSERT OR IGNORE INTO superseded_records(\(recordColumns))
                    VALUES (old.model, old.property, old.instance, old.time, old.counter, old.replica, old.type, old.value);
                END;
                """)
        } else {
            // Without history, `records(after:)` and the clock's start read current values by time.
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS current_values_by_time ON current_values(\(recordTimeColumns))")
        }
        // Covers what listing reads: (instance, type, value, time, counter, replica).
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS current_statuses
            ON current_values(model, instance, type, value, time, counter, replica) WHERE property = \(PropertyKey.instanceId)
            """)
    }

    /// The list members (format version 2 and later).
    private static func createListMembers(in db: GRDB.Database) throws {
        try db.execute(sql: """
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
    /// rebuilt in the (model, instance, property) order, and the value indexes of declared
    /// collection indexes under their new names (models' value indexes come back when
    /// queries need them); versions up to 4 move their history table's records into
    /// `record_times`, and into `superseded_records` those that are not current.
    static func migrate(_ db: GRDB.Database, from version: Int, keepsHistory: Bool) throws {
        guard version < formatVersion else { return }
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
            // `collection_index_M_P` (format 3's declared indexes) come back as value indexes.
            let declared = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'collection_index_%'")
                .compactMap { name -> (ModelKey, PropertyKey)? in
                    let parts = name.dropFirst("collection_index_".count).split(separator: "_")
                    guard parts.count == 2, let model = Int(parts[0]), let property = Int(parts[1]) else { return nil }
                    return (model, property)
                }
            try db.execute(sql: valueTableSQL("current_values_v4", primaryKey: "model, instance, property"))
            try db.execute(sql: """
                INSERT INTO current_values_v4(\(recordColumns)) SELECT \(recordColumns) FROM current_values;
                DROP TABLE current_values;
                ALTER TABLE current_values_v4 RENAME TO current_values;
                """)
            for (model, property) in declared {
                try db.execute(sql: createValueIndexSQL(model: model, property: property))
            }
        }
        // Format 4's `records` held every record, the current ones too.
        try createHistoryTables(in: db)
        if keepsHistory {
            try db.execute(sql: """
                INSERT OR IGNORE INTO record_times(\(recordTimeColumns)) SELECT \(recordTimeColumns) FROM records;
                INSERT OR IGNORE INTO record_times(\(recordTimeColumns)) SELECT \(recordTimeColumns) FROM current_values;
                INSERT OR IGNORE INTO superseded_records(\(recordColumns))
                SELECT \(recordColumns) FROM records r
                WHERE NOT \(holdsRecord("current_values") { "r.\($0)" });
                """)
        }
        try db.execute(sql: "DROP TABLE IF EXISTS records")
        try createIndexesAndTriggers(in: db, keepsHistory: keepsHistory)
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// The `keepsHistory` setting stored in the file.
    static func keepsHistory(in db: GRDB.Database) throws -> Bool? {
        try Bool.fetchOne(db, sql: "SELECT value FROM pathbase_meta WHERE key = 'keepsHistory'")
    }

    /// The tables every Pathbase file of a format version has.
    static func tables(ofVersion version: Int) -> Set<String> {
        let first: Set<String> = ["pathbase_meta", "value_types", "current_values"]
        let history: Set<String> = version >= 5 ? ["superseded_records", "record_times"] : ["records"]
        return first.union(history).union(version >= 2 ? ["list_members"] : [])
    }
}
