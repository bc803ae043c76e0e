import Foundation
import GRDBSQLite

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
nonisolated(unsafe) let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A prepared SQLite statement, compiled once and reused for every call of a hot path.
///
/// A thin, allocation-free layer over the C API: binding and reading take 1-based
/// parameter indexes and 0-based column indexes, as in SQLite. Only used while the owning
/// ``SQLiteDatabase`` holds its lock.
struct Statement {

    let handle: OpaquePointer

    /// Compiles `sql` on a connection, for repeated use.
    init(sql: String, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteDatabaseError.sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
        }
        self.handle = handle
    }

    func finalize() {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inline(__always)
    func bind(_ value: Int, at index: Int32) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    @inline(__always)
    func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inline(__always)
    func bind(_ value: String, at index: Int32) {
        // Native Swift strings are contiguous UTF-8: no copy before SQLite's own.
        _ = value.withCString { sqlite3_bind_text(handle, index, $0, Int32(value.utf8.count), transientDestructor) }
    }

    @inline(__always)
    func bind(_ value: Data, at index: Int32) {
        if value.isEmpty {
            // A nil pointer would bind NULL; keep an empty blob a blob.
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transientDestructor)
        }
    }

    /// Binds bytes as a blob (an empty one too).
    @inline(__always)
    func bind(bytes value: [UInt8], at index: Int32) {
        guard !value.isEmpty else {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transientDestructor)
        }
    }

    @inline(__always)
    func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    // MARK: Running

    /// Runs one step; returns SQLite's result code (`SQLITE_ROW`, `SQLITE_DONE` or an error).
    @inline(__always)
    func step() -> Int32 {
        sqlite3_step(handle)
    }

    /// Runs one step of a statement that returns rows: whether a row is there. Throws the
    /// error of a failed step, with its connection's message.
    @inline(__always)
    func hasRow() throws(SQLiteDatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }

    /// Readies the statement for its next use and ends its read, if any.
    @inline(__always)
    func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Reading columns

    @inline(__always)
    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    @inline(__always)
    func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    @inline(__always)
    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @inline(__always)
    func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    @inline(__always)
    func data(at column: Int32) -> Data {
        let bytes = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Calls `body` with the column's bytes, valid only during the call.
    @inline(__always)
    func withBytes<Result>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let bytes = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
    }
}
