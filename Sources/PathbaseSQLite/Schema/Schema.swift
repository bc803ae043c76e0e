import Foundation
import GRDB

/// The tables of a Pathbase SQLite file, and its format version.
///
/// - `current_values`: the newest record of every path — what `get` reads.
/// - `records`: every record, when the file keeps history — what history views, "instances
///   at a date" and sync read. Empty when it doesn't.
/// - `value_types`: the Swift type names of JSON-encoded `Codable` values (see ``ValueTag``).
/// - `pathbase_meta`: settings fixed at creation (`keepsHistory`).
///
/// Both value tables are `WITHOUT ROWID` with the path in the primary key, ordered (model,
/// property, instance): one property of one model is a contiguous range, like a column, so
/// listing a model's instances (their statuses, property 0) is a range scan, and a point
/// read is one b-tree descent without a rowid indirection (15–40% faster for composite keys).
/// `records` is also indexed by timestamp then path, the order `records(after:)` returns.
///
/// Queries (since format version 2): `current_values_by_value` indexes current values by
/// (model, property, type, value), so a filter on a property is an index range scan and an
/// inverse lookup of a `@Reference` one descent; `list_members` holds one row per element of
/// every current `[Int]` value (reference lists), by (model, property, element, instance),
/// for inverse lookups of `@ReferenceList`s. Writing a list replaces the path's rows; a
/// path whose list was replaced by a value of another type keeps its old rows, so every read
/// of `list_members` also checks that the current value is still a list. (Format version 2
/// deleted them in a trigger on `current_values`; a trigger makes SQLite keep a statement
/// journal for every write of a current value, which doubled the cost of large batches.)
///
/// The file is marked with ``applicationId`` (`PRAGMA application_id`) and
/// ``formatVersion`` (`PRAGMA user_version`). A file with a higher version throws
/// ``SQLiteDatabaseError/newerFormat(path:found:supported:)``.
enum Schema {

    /// 'PBDB': identifies a Pathbase file among SQLite databases.
    static let applicationId: Int32 = 0x5042_4442

    /// The storage format this version writes and reads. Raise it for any incompatible
    /// change of tables or value encoding, and migrate older files on open.
    static let formatVersion = 3

    static let metaTable = "pathbase_meta"

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
            CREATE TABLE IF NOT EXISTS current_values (
                model INTEGER NOT NULL,
                property INTEGER NOT NULL,
                instance INTEGER NOT NULL,
                time INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                type INTEGER NOT NULL,
                value,
                PRIMARY KEY (model, property, instance)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS records (
                model INTEGER NOT NULL,
                property INTEGER NOT NULL,
                instance INTEGER NOT NULL,
                time INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                type INTEGER NOT NULL,
                value,
                PRIMARY KEY (model, property, instance, time, counter, replica)
            ) WITHOUT ROWID;
            """)
        if keepsHistory {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS records_by_time ON records(time, counter, replica, model, instance, property)")
        } else {
            // Without history, `records(after:)` and the clock's start read current values by time.
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS current_values_by_time ON current_values(time, counter, replica, model, instance, property)")
        }
        try createQueryIndexes(in: db)
        try db.execute(sql: "INSERT OR IGNORE INTO pathbase_meta(key, value) VALUES ('keepsHistory', ?)", arguments: [keepsHistory])
        try db.execute(sql: "PRAGMA application_id = \(applicationId)")
        try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
    }

    /// The value index and the list members (format version 2 and later).
    private static func createQueryIndexes(in db: GRDB.Database) throws {
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS current_values_by_value ON current_values(model, property, type, value);
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
    /// transaction: version 1 gets the query indexes, filled from its current values;
    /// version 2 loses the trigger that kept `list_members` (its rows are already exact).
    static func migrate(_ db: GRDB.Database, from version: Int) throws {
        guard version < formatVersion else { return }
        if version == 2 {
            try db.execute(sql: "DROP TRIGGER IF EXISTS list_members_replaced")
            try db.execute(sql: "PRAGMA user_version = \(formatVersion)")
            return
        }
        try createQueryIndexes(in: db)
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
