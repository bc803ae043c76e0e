import GRDBSQLite

/// The raw baseline of `sqlite.listing-vs-raw`: SQLite's C API reading every row of the
/// GRDB baseline's table with one prepared statement, in one read transaction, into
/// `BenchRow`s.
final class RawRowListing {
    private var handle: OpaquePointer?
    private var select: OpaquePointer?

    init(path: String) {
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_prepare_v3(handle, "SELECT id, count, name, score, flag, note FROM bench_row", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &select, nil)
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_close_v2(handle)
    }

    func readAll() -> [BenchRow] {
        sqlite3_exec(handle, "BEGIN", nil, nil, nil)
        defer { sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        var rows: [BenchRow] = []
        while sqlite3_step(select) == SQLITE_ROW {
            var row = BenchRow(id: Int(sqlite3_column_int64(select, 0)), names: [""])
            row.count = Int(sqlite3_column_int64(select, 1))
            row.name = text(at: 2)
            row.score = sqlite3_column_double(select, 3)
            row.flag = sqlite3_column_int64(select, 4) != 0
            row.note = text(at: 5)
            rows.append(row)
        }
        sqlite3_reset(select)
        return rows
    }

    private func text(at column: Int32) -> String {
        guard let bytes = sqlite3_column_text(select, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(select, column))), as: UTF8.self)
    }
}
