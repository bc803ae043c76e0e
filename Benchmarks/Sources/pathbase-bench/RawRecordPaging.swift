import Foundation
import GRDBSQLite
import Pathbase

/// The raw SQL baseline of `sqlite.records-after-page`: the same records in a plain table
/// (path, timestamp, a type tag and the value) with an index on (time, counter, replica,
/// model, instance, property), paged by keyset — `WHERE (time, counter, replica) > (?, ?, ?)
/// ORDER BY … LIMIT 500` — through SQLite's C API, each row decoded into the same `Record`
/// values `records(after:limit:)` returns. What a hand-written sync log would do.
final class RawRecordPaging {
    private var handle: OpaquePointer?
    private var page: OpaquePointer?

    /// The type tags of the table's `type` column.
    private enum Tag: Int64 {
        case integer = 0
        case real, text
    }

    init(path: String, records: [Record]) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = NORMAL")
        execute(
            """
            CREATE TABLE records (
                model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
                time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
                type INTEGER NOT NULL, value
            )
            """)
        execute("CREATE INDEX records_by_time ON records(time, counter, replica, model, instance, property)")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO records VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &insert, nil)
        defer { sqlite3_finalize(insert) }
        execute("BEGIN")
        for record in records {
            sqlite3_bind_int64(insert, 1, Int64(record.path.model))
            sqlite3_bind_int64(insert, 2, Int64(record.path.instance))
            sqlite3_bind_int64(insert, 3, Int64(record.path.property))
            sqlite3_bind_int64(insert, 4, record.timestamp.time)
            sqlite3_bind_int64(insert, 5, Int64(record.timestamp.counter))
            sqlite3_bind_int64(insert, 6, Int64(record.timestamp.replica))
            switch record.value {
            case let value as Int:
                sqlite3_bind_int64(insert, 7, Tag.integer.rawValue)
                sqlite3_bind_int64(insert, 8, Int64(value))
            case let value as Double:
                sqlite3_bind_int64(insert, 7, Tag.real.rawValue)
                sqlite3_bind_double(insert, 8, value)
            case let value as String:
                sqlite3_bind_int64(insert, 7, Tag.text.rawValue)
                sqlite3_bind_text(insert, 8, value, -1, Self.transient)
            default:
                throw BenchmarkError.unexpected("raw record paging stores Int, Double and String, not \(type(of: record.value))")
            }
            guard sqlite3_step(insert) == SQLITE_DONE else {
                throw BenchmarkError.unexpected("raw record insert: \(String(cString: sqlite3_errmsg(handle)))")
            }
            sqlite3_reset(insert)
        }
        execute("COMMIT")
        sqlite3_prepare_v3(
            handle,
            """
            SELECT model, instance, property, time, counter, replica, type, value FROM records
            WHERE (time, counter, replica) > (?1, ?2, ?3)
            ORDER BY time, counter, replica, model, instance, property
            LIMIT ?4
            """, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &page, nil)
    }

    deinit {
        sqlite3_finalize(page)
        sqlite3_close_v2(handle)
    }

    private func execute(_ sql: String) {
        sqlite3_exec(handle, sql, nil, nil, nil)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the buffer goes away.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// One page of records after `cursor`, oldest first.
    func records(after cursor: Timestamp, limit: Int) -> [Record] {
        sqlite3_bind_int64(page, 1, cursor.time)
        sqlite3_bind_int64(page, 2, Int64(cursor.counter))
        sqlite3_bind_int64(page, 3, Int64(cursor.replica))
        sqlite3_bind_int64(page, 4, Int64(limit))
        defer { sqlite3_reset(page) }
        var records: [Record] = []
        records.reserveCapacity(limit)
        while sqlite3_step(page) == SQLITE_ROW {
            let path = Path(model: Int(sqlite3_column_int64(page, 0)), instance: Int(sqlite3_column_int64(page, 1)), property: Int(sqlite3_column_int64(page, 2)))
            let timestamp = Timestamp(
                time: sqlite3_column_int64(page, 3), counter: UInt32(truncatingIfNeeded: sqlite3_column_int64(page, 4)), replica: UInt32(truncatingIfNeeded: sqlite3_column_int64(page, 5)))
            let value: any DatabaseValue
            switch Tag(rawValue: sqlite3_column_int64(page, 6)) {
            case .integer: value = Int(sqlite3_column_int64(page, 7))
            case .real: value = sqlite3_column_double(page, 7)
            case .text: value = sqlite3_column_text(page, 7).map { String(cString: $0) } ?? ""
            case nil: continue
            }
            records.append(Record(path: path, timestamp: timestamp, value: value))
        }
        return records
    }

    /// Pages through every record, `pageSize` at a time, as sync does; returns how many.
    @discardableResult
    func pageAll(pageSize: Int = RecordPagingWorkload.pageSize) -> Int {
        var cursor = Timestamp(time: Int64.min)
        var total = 0
        while true {
            let page = records(after: cursor, limit: pageSize)
            guard let last = page.last else { break }
            total += page.count
            cursor = last.timestamp
        }
        return total
    }
}
