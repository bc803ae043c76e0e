import Foundation
import GRDBSQLite

/// The baseline for the SQLite benchmarks: SQLite's C API used directly, with prepared
/// statements, on the same tables and settings as `SQLiteDatabase` (WAL,
/// `synchronous = NORMAL`, the same `WITHOUT ROWID` layout, indexes and history trigger of
/// format 5; no value index, which `SQLiteDatabase` creates only for queried properties).
final class RawSQLite {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = NORMAL")
        execute("""
            CREATE TABLE current_values (
                model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                type INTEGER NOT NULL, value,
                PRIMARY KEY (model, instance, property)
            ) WITHOUT ROWID
            """)
        execute("""
            CREATE TABLE superseded_records (
                model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                type INTEGER NOT NULL, value,
                PRIMARY KEY (model, instance, property, time, counter, replica)
            ) WITHOUT ROWID
            """)
        execute("""
            CREATE TABLE record_times (
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
                PRIMARY KEY (time, counter, replica, model, instance, property)
            ) WITHOUT ROWID
            """)
        execute("""
            CREATE TRIGGER current_value_superseded AFTER UPDATE ON current_values BEGIN
                INSERT OR IGNORE INTO superseded_records VALUES (old.model, old.property, old.instance, old.time, old.counter, old.replica, old.type, old.value);
            END
            """)
        execute("CREATE INDEX current_statuses ON current_values(model, instance, type, value, time, counter, replica) WHERE property = 0")
        execute("""
            CREATE TABLE list_members (
                model INTEGER NOT NULL, property INTEGER NOT NULL, member INTEGER NOT NULL, instance INTEGER NOT NULL,
                PRIMARY KEY (model, property, member, instance)
            ) WITHOUT ROWID
            """)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) {
        sqlite3_exec(handle, sql, nil, nil, nil)
    }

    private func statement(_ sql: String) -> OpaquePointer? {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        statements[sql] = statement
        return statement
    }

    // The write path's statements, prepared once: no dictionary lookup (hashing the SQL)
    // per write on the baseline's side.
    private lazy var writeStatements = [statement(Self.insertRecordTime), statement(Self.upsertCurrent)]
    private lazy var readStatement = statement("SELECT type, value FROM current_values WHERE model = ? AND property = ? AND instance = ?")

    // Has no ?7 and ?8: their binds below fail harmlessly (SQLITE_RANGE).
    private static let insertRecordTime = "INSERT OR IGNORE INTO record_times(time, counter, replica, model, instance, property) VALUES (?4, ?5, ?6, ?1, ?3, ?2)"
    private static let upsertCurrent = """
        INSERT INTO current_values(model, property, instance, time, counter, replica, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(model, instance, property) DO UPDATE SET time = excluded.time, counter = excluded.counter,
        replica = excluded.replica, type = excluded.type, value = excluded.value
        WHERE (excluded.time, excluded.counter, excluded.replica) > (time, counter, replica)
        """

    /// Writes one record's time and its current value (the trigger keeps the value it
    /// replaces), as `SQLiteDatabase` does for a `set`.
    func write(model: Int, property: Int, instance: Int, time: Int64, type: Int64, bind: (OpaquePointer?) -> Void) {
        for statement in writeStatements {
            sqlite3_bind_int64(statement, 1, Int64(model))
            sqlite3_bind_int64(statement, 2, Int64(property))
            sqlite3_bind_int64(statement, 3, Int64(instance))
            sqlite3_bind_int64(statement, 4, time)
            sqlite3_bind_int64(statement, 5, 0)
            sqlite3_bind_int64(statement, 6, 1)
            sqlite3_bind_int64(statement, 7, type)
            bind(statement)
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
    }

    func writeInt(model: Int, property: Int, instance: Int, time: Int64, _ value: Int) {
        write(model: model, property: property, instance: instance, time: time, type: 2) { _ = sqlite3_bind_int64($0, 8, Int64(value)) }
    }

    func writeDouble(model: Int, property: Int, instance: Int, time: Int64, _ value: Double) {
        write(model: model, property: property, instance: instance, time: time, type: 12) { _ = sqlite3_bind_double($0, 8, value) }
    }

    func writeString(model: Int, property: Int, instance: Int, time: Int64, _ value: String) {
        write(model: model, property: property, instance: instance, time: time, type: 14) { statement in
            // SQLITE_TRANSIENT: SQLite copies the text before the buffer goes away.
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            value.utf8CString.withUnsafeBufferPointer { buffer in
                _ = sqlite3_bind_text(statement, 8, buffer.baseAddress, Int32(buffer.count - 1), transient)
            }
        }
    }

    /// Reads one integer value by path.
    func readInt(model: Int, property: Int, instance: Int) -> Int? {
        let statement = readStatement
        defer { sqlite3_reset(statement) }
        sqlite3_bind_int64(statement, 1, Int64(model))
        sqlite3_bind_int64(statement, 2, Int64(property))
        sqlite3_bind_int64(statement, 3, Int64(instance))
        guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_int64(statement, 0) == 2 else { return nil }
        return Int(sqlite3_column_int64(statement, 1))
    }

    /// The instances of a model whose status is `created`.
    func createdInstances(model: Int) -> [Int] {
        let statement = statement("SELECT instance FROM current_values WHERE model = ? AND property = 0 AND value = 1")
        defer { sqlite3_reset(statement) }
        sqlite3_bind_int64(statement, 1, Int64(model))
        var instances: [Int] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            instances.append(Int(sqlite3_column_int64(statement, 0)))
        }
        return instances
    }
}
