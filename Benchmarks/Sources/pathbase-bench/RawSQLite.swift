import CPathbaseBodies
import Foundation
import GRDBSQLite

/// The baseline for the SQLite benchmarks: SQLite's C API used directly, with prepared
/// statements, on the same tables and settings as `SQLiteDatabase` (WAL,
/// `synchronous = NORMAL`, format 6's `WITHOUT ROWID` layout: instance bodies, superseded
/// records, record times; no value index, which `SQLiteDatabase` creates only for queried
/// properties). A write reads its instance's body, replaces or inserts its entry (with the
/// C functions that define bodies) and writes the body back, with its time.
final class RawSQLite {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = NORMAL")
        execute(
            """
            CREATE TABLE instance_values (
                model INTEGER NOT NULL, instance INTEGER NOT NULL, body BLOB NOT NULL,
                PRIMARY KEY (model, instance)
            ) WITHOUT ROWID
            """)
        execute(
            """
            CREATE TABLE superseded_records (
                model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                type INTEGER NOT NULL, value,
                PRIMARY KEY (model, instance, property, time, counter, replica)
            ) WITHOUT ROWID
            """)
        execute(
            """
            CREATE TABLE record_times (
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
                PRIMARY KEY (time, counter, replica, model, instance, property)
            ) WITHOUT ROWID
            """)
        execute(
            """
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
    private lazy var selectBody = statement("SELECT body FROM instance_values WHERE model = ?1 AND instance = ?2")
    private lazy var upsertBody = statement(
        """
        INSERT INTO instance_values(model, instance, body) VALUES (?1, ?2, ?3)
        ON CONFLICT(model, instance) DO UPDATE SET body = excluded.body
        """)
    private lazy var insertRecordTime = statement("INSERT OR IGNORE INTO record_times(time, counter, replica, model, instance, property) VALUES (?1, 0, 1, ?2, ?3, ?4)")
    private lazy var insertSuperseded = statement("INSERT OR IGNORE INTO superseded_records VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")

    /// Writes one record as `SQLiteDatabase` does for a `set`: its instance's body with the
    /// record's entry in place of an older one (which goes to `superseded_records`), and
    /// its time.
    func write(model: Int, property: Int, instance: Int, time: Int64, type: Int64, value: pathbase_entry) {
        var entry = value
        entry.property = Int64(property)
        entry.tag = type
        entry.time = time
        entry.counter = 0
        entry.replica = 1
        // The body's base: the stored body's, else this record's time and replica.
        var base = pathbase_base(time: time, replica: 1)
        var body = [UInt8](repeating: 0, count: Int(PATHBASE_BASE_SIZE))
        sqlite3_bind_int64(selectBody, 1, Int64(model))
        sqlite3_bind_int64(selectBody, 2, Int64(instance))
        var replaced: pathbase_entry?
        if sqlite3_step(selectBody) == SQLITE_ROW, let stored = sqlite3_column_blob(selectBody, 0)?.assumingMemoryBound(to: UInt8.self) {
            let length = sqlite3_column_bytes(selectBody, 0)
            _ = pathbase_body_base(stored, length, &base)
            var offset = PATHBASE_BASE_SIZE
            var start = PATHBASE_BASE_SIZE
            var existing = pathbase_entry()
            var placed = false
            while pathbase_body_next(stored, length, &offset, &existing) == 1 {
                if !placed, existing.property >= entry.property {
                    placed = true
                    if existing.property == entry.property {
                        replaced = existing
                        append(entry, base: base, to: &body)
                        start = offset
                        continue
                    }
                    append(entry, base: base, to: &body)
                }
                body.append(contentsOf: UnsafeBufferPointer(start: stored + Int(start), count: Int(offset - start)))
                start = offset
            }
            if !placed { append(entry, base: base, to: &body) }
            if let replaced {
                sqlite3_bind_int64(insertSuperseded, 1, Int64(model))
                sqlite3_bind_int64(insertSuperseded, 2, Int64(property))
                sqlite3_bind_int64(insertSuperseded, 3, Int64(instance))
                sqlite3_bind_int64(insertSuperseded, 4, replaced.time)
                sqlite3_bind_int64(insertSuperseded, 5, Int64(replaced.counter))
                sqlite3_bind_int64(insertSuperseded, 6, Int64(replaced.replica))
                sqlite3_bind_int64(insertSuperseded, 7, replaced.tag)
                switch replaced.kind {
                case PATHBASE_KIND_INTEGER: sqlite3_bind_int64(insertSuperseded, 8, replaced.integer)
                case PATHBASE_KIND_REAL: sqlite3_bind_double(insertSuperseded, 8, replaced.real)
                case PATHBASE_KIND_TEXT: sqlite3_bind_text(insertSuperseded, 8, replaced.bytes.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, replaced.length, Self.transient)
                default: sqlite3_bind_null(insertSuperseded, 8)
                }
            }
        } else {
            append(entry, base: base, to: &body)
        }
        if replaced != nil {
            sqlite3_step(insertSuperseded)
            sqlite3_reset(insertSuperseded)
        }
        sqlite3_reset(selectBody)
        body.withUnsafeMutableBufferPointer { buffer in
            if let start = buffer.baseAddress { pathbase_base_put(start, &base) }
        }
        sqlite3_bind_int64(upsertBody, 1, Int64(model))
        sqlite3_bind_int64(upsertBody, 2, Int64(instance))
        body.withUnsafeBytes { _ = sqlite3_bind_blob(upsertBody, 3, $0.baseAddress, Int32($0.count), Self.transient) }
        sqlite3_step(upsertBody)
        sqlite3_reset(upsertBody)
        sqlite3_bind_int64(insertRecordTime, 1, time)
        sqlite3_bind_int64(insertRecordTime, 2, Int64(model))
        sqlite3_bind_int64(insertRecordTime, 3, Int64(instance))
        sqlite3_bind_int64(insertRecordTime, 4, Int64(property))
        sqlite3_step(insertRecordTime)
        sqlite3_reset(insertRecordTime)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the buffer goes away.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func append(_ entry: pathbase_entry, base: pathbase_base, to body: inout [UInt8]) {
        var entry = entry
        var base = base
        let start = body.count
        body.append(contentsOf: repeatElement(0, count: Int(pathbase_entry_size(&entry, &base))))
        body.withUnsafeMutableBufferPointer { buffer in
            if let address = buffer.baseAddress { _ = pathbase_entry_put(address + start, &entry, &base) }
        }
    }

    func writeInt(model: Int, property: Int, instance: Int, time: Int64, type: Int64 = 2, _ value: Int) {
        var entry = pathbase_entry()
        entry.kind = PATHBASE_KIND_INTEGER
        entry.integer = Int64(value)
        write(model: model, property: property, instance: instance, time: time, type: type, value: entry)
    }

    func writeDouble(model: Int, property: Int, instance: Int, time: Int64, _ value: Double) {
        var entry = pathbase_entry()
        entry.kind = PATHBASE_KIND_REAL
        entry.real = value
        write(model: model, property: property, instance: instance, time: time, type: 12, value: entry)
    }

    func writeString(model: Int, property: Int, instance: Int, time: Int64, _ value: String) {
        var text = value
        text.withUTF8 { bytes in
            var entry = pathbase_entry()
            entry.kind = PATHBASE_KIND_TEXT
            entry.bytes = bytes.baseAddress
            entry.length = Int32(bytes.count)
            write(model: model, property: property, instance: instance, time: time, type: 14, value: entry)
        }
    }

    /// Reads one integer value by path.
    func readInt(model: Int, property: Int, instance: Int) -> Int? {
        let statement = selectBody
        defer { sqlite3_reset(statement) }
        sqlite3_bind_int64(statement, 1, Int64(model))
        sqlite3_bind_int64(statement, 2, Int64(instance))
        guard sqlite3_step(statement) == SQLITE_ROW, let body = sqlite3_column_blob(statement, 0)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var entry = pathbase_entry()
        guard pathbase_body_find(body, sqlite3_column_bytes(statement, 0), Int64(property), &entry) == 1, entry.tag == 2 else { return nil }
        return Int(entry.integer)
    }

    /// The instances of a model whose status is `created`.
    func createdInstances(model: Int) -> [Int] {
        let statement = statement("SELECT instance, body FROM instance_values WHERE model = ?")
        defer { sqlite3_reset(statement) }
        sqlite3_bind_int64(statement, 1, Int64(model))
        var instances: [Int] = []
        var entry = pathbase_entry()
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let body = sqlite3_column_blob(statement, 1)?.assumingMemoryBound(to: UInt8.self),
                pathbase_body_find(body, sqlite3_column_bytes(statement, 1), 0, &entry) == 1, entry.integer == 1
            else { continue }
            instances.append(Int(sqlite3_column_int64(statement, 0)))
        }
        return instances
    }
}
