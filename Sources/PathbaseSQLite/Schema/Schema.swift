import Foundation
import GRDB
import Pathbase

/// The tables of a Pathbase SQLite file, and its format version.
///
/// - `current_values`: the newest record of every path — what `get` reads.
/// - `records`: every record, when the file keeps history — what history views, "instances
///   at a date" and sync read. Empty when it doesn't.
/// - `value_types`: the Swift type names of JSON-encoded `Codable` values (see ``ValueTag``).
/// - `pathbase_meta`: settings fixed at creation (`keepsHistory`).
///
/// Both value tables are `WITHOUT ROWID` with the path in the primary key, ordered (model,
/// instance, property) since format version 4: the values of one instance are neighbours,
/// so writing an object dirties one leaf page of each table (format 3 ordered them model,
/// property, instance, which put an object's values on as many pages as it has
/// properties, each written and checksummed into the WAL at every commit), reading an
/// object is one short range, and listing a model is one range scan. A point read is one
/// b-tree descent without a rowid indirection. `records` is also indexed by timestamp then
/// path, the order `records(after:)` returns.
///
/// `current_statuses` is a partial index of the instance statuses (property 0), so listing
/// a model's instances reads only their statuses. Queries (see ``SQLiteDatabase`` queries):
/// a value index is a partial index `value_index_M_P` over the current values of one
/// (model, property), created for a collection's declared indexes and, for models, the
/// first time a query or an inverse lookup needs one; writes of properties nobody queries
/// pay for no index. (Format versions 2 and 3 indexed every current value by value, which
/// cost one more page per property at every commit.) `list_members` holds one row per
/// element of every current `[Int]` value (reference lists), by (model, property, element,
/// instance), for inverse lookups of `@ReferenceList`s. Writing a list replaces the path's
/// rows; a path whose list was replaced by a value of another type keeps its old rows, so
/// every read of `list_members` also checks that the current value is still a list.
///
/// The file is marked with ``applicationId`` (`PRAGMA application_id`) and
/// ``formatVersion`` (`PRAGMA user_version`). A file with a higher version throws
/// ``SQLiteDatabaseError/newerFormat(path:found:supported:)``.
enum Schema {

    /// 'PBDB': identifies a Pathbase file among SQLite databases.
    static let applicationId: Int32 = 0x5042_4442

    /// The storage format this version writes and reads. Raise it for any incompatible
    /// change of tables or value encoding, and migrate older files on open.
    static let formatVersion = 4

    static let metaTable = "pathbase_meta"

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
        try createValueTables(in: db, keepsHistory: keepsHistory)
        try createValueTableIndexes(in: db, keepsHistory: keepsHistory)
        try createListMembers(in: db)
        try db.execute(sql: "INSERT OR IGNORE INTO pathbase_meta(key, value) VALUES ('keepsHistory', ?)", arguments: [keepsHistory])
        try db.execute(sql: "PRAGMA application_id = \(applicationId)")
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// `current_values` and `records` with their indexes, named with `suffix` (a migration
    /// builds them beside the old tables first).
    private static func createValueTables(in db: GRDB.Database, keepsHistory: Bool, suffix: String = "") throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS current_values\(suffix) (
                model INTEGER NOT NULL,
                property INTEGER NOT NULL,
                instance INTEGER NOT NULL,
                time INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                type INTEGER NOT NULL,
                value,
                PRIMARY KEY (model, instance, property)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS records\(suffix) (
                model INTEGER NOT NULL,
                property INTEGER NOT NULL,
                instance INTEGER NOT NULL,
                time INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                type INTEGER NOT NULL,
                value,
                PRIMARY KEY (model, instance, property, time, counter, replica)
            ) WITHOUT ROWID;
            """)
    }

    /// The indexes of the value tables, created once the tables have their final names.
    private static func createValueTableIndexes(in db: GRDB.Database, keepsHistory: Bool) throws {
        if keepsHistory {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS records_by_time ON records(time, counter, replica, model, instance, property)")
        } else {
            // Without history, `records(after:)` and the clock's start read current values by time.
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS current_values_by_time ON current_values(time, counter, replica, model, instance, property)")
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
    /// queries need them).
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
            try createValueTables(in: db, keepsHistory: keepsHistory, suffix: "_v4")
            let columns = "model, property, instance, time, counter, replica, type, value"
            for table in ["current_values", "records"] {
                try db.execute(sql: """
                    INSERT INTO \(table)_v4(\(columns)) SELECT \(columns) FROM \(table);
                    DROP TABLE \(table);
                    ALTER TABLE \(table)_v4 RENAME TO \(table);
                    """)
            }
            try createValueTableIndexes(in: db, keepsHistory: keepsHistory)
            for (model, property) in declared {
                try db.execute(sql: createValueIndexSQL(model: model, property: property))
            }
        }
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// The `keepsHistory` setting stored in the file.
    static func keepsHistory(in db: GRDB.Database) throws -> Bool? {
        try Bool.fetchOne(db, sql: "SELECT value FROM pathbase_meta WHERE key = 'keepsHistory'")
    }

    /// The tables every Pathbase file of a format version has.
    static func tables(ofVersion version: Int) -> Set<String> {
        let first: Set<String> = ["pathbase_meta", "value_types", "current_values", "records"]
        return version >= 2 ? first.union(["list_members"]) : first
    }
}
