import Foundation
import GRDB

/// Looks at an existing file before ``SQLiteDatabase`` opens it for writing, so that a file
/// it rejects is never changed.
///
/// It reads the 100-byte SQLite header directly, then opens the file read-only to look at
/// Pathbase's marks and tables. Only a file that passes is opened for writing (which may
/// switch it to WAL mode and create the tables).
enum FileCheck {

    /// What an existing path holds.
    enum Content {
        /// Nothing yet (no file, an empty file or an SQLite database without any table):
        /// Pathbase creates its tables.
        case empty
        /// A Pathbase database.
        case pathbase(keepsHistory: Bool)
    }

    /// `busyTimeout`: how long to wait while another process holds the file locked (for
    /// example while it recovers or checkpoints the write-ahead log).
    static func inspect(path: String, busyTimeout: TimeInterval) throws(SQLiteDatabaseError) -> Content {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .empty }
        guard !isDirectory.boolValue else { throw .cannotOpen(path: path, reason: "it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotOpen(path: path, reason: "it can't be read")
        }
        let header: Data
        let size: UInt64
        do {
            defer { try? handle.close() } // read-only: nothing written can be lost
            header = try handle.read(upToCount: 100) ?? Data()
            size = try handle.seekToEnd()
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
        if header.isEmpty { return .empty }
        // With a write-ahead log beside it, the main file may legitimately be shorter or
        // longer than its header says (a checkpoint interrupted by a crash): SQLite
        // completes it from the log on open, so only the header's shape can be judged here.
        // No readable log beside the file: judge the file alone.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? UInt64) ?? 0
        try checkHeader(header, fileSize: walSize > 0 ? nil : size, path: path)
        return try inspectTables(path: path, busyTimeout: busyTimeout)
    }

    /// The SQLite file header: magic string, page size, and a page count that fits the size.
    /// `fileSize` is `nil` when a write-ahead log may still complete the file.
    private static func checkHeader(_ header: Data, fileSize: UInt64?, path: String) throws(SQLiteDatabaseError) {
        let magic = Data("SQLite format 3\0".utf8)
        guard header.starts(with: magic.prefix(header.count)) else { throw .notADatabase(path: path) }
        guard header.count == 100 else {
            throw .corrupt(path: path, reason: "truncated to \(header.count) bytes, shorter than the SQLite header")
        }
        let bytes = [UInt8](header)
        func bigEndian(_ offset: Int, _ count: Int) -> UInt64 {
            bytes[offset ..< offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw .corrupt(path: path, reason: "the header holds an invalid page size (\(rawPageSize))")
        }
        let changeCounter = bigEndian(24, 4)
        let pageCount = bigEndian(28, 4)
        let validFor = bigEndian(92, 4)
        guard let fileSize else { return }
        if pageCount > 0, changeCounter == validFor, fileSize < pageCount * pageSize {
            throw .corrupt(path: path, reason: "truncated: \(fileSize) bytes, but the header counts \(pageCount) pages of \(pageSize) bytes")
        }
        if fileSize % pageSize != 0 {
            throw .corrupt(path: path, reason: "truncated: \(fileSize) bytes is not a whole number of \(pageSize)-byte pages")
        }
    }

    /// Opens the file read-only and reads Pathbase's marks and tables.
    private static func inspectTables(path: String, busyTimeout: TimeInterval) throws(SQLiteDatabaseError) -> Content {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "Pathbase file check"
        configuration.prepareDatabase { db in try Connection.registerBodyFunctions(db) }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() } // read-only: nothing written can be lost
            return try queue.read { db throws -> Content in
                let applicationId = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
                guard applicationId == Schema.applicationId else {
                    if applicationId == 0, tables.isEmpty { return .empty }
                    throw SQLiteDatabaseError.notPathbase(path: path)
                }
                guard version <= Schema.formatVersion else {
                    throw SQLiteDatabaseError.newerFormat(path: path, found: version, supported: Schema.formatVersion)
                }
                let required = Schema.tables(ofVersion: version)
                let missing = required.subtracting(tables)
                guard version >= 1, missing.isEmpty else {
                    throw SQLiteDatabaseError.corrupt(path: path, reason: "missing tables \(missing.sorted().joined(separator: ", "))")
                }
                guard let keepsHistory = try Schema.keepsHistory(in: db) else {
                    throw SQLiteDatabaseError.corrupt(path: path, reason: "missing the keepsHistory setting")
                }
                // Touch the first page of every table, so a damaged one fails now rather than later.
                for table in required.sorted() {
                    _ = try Row.fetchOne(db, sql: "SELECT * FROM \(table) LIMIT 1")
                }
                let timeOrdered = version >= 5 ? "record_times" : "records"
                _ = try Row.fetchOne(db, sql: "SELECT * FROM \(timeOrdered) ORDER BY time DESC, counter DESC, replica DESC LIMIT 1")
                return .pathbase(keepsHistory: keepsHistory)
            }
        } catch let error as SQLiteDatabaseError {
            throw error
        } catch let error as DatabaseError {
            throw SQLiteDatabaseError(error, path: path)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }
}

extension SQLiteDatabaseError {
    /// Maps an error GRDB threw while opening `path`.
    init(_ error: DatabaseError, path: String) {
        switch error.resultCode {
        case .SQLITE_NOTADB: self = .notADatabase(path: path)
        case .SQLITE_CORRUPT: self = .corrupt(path: path, reason: error.message ?? "\(error)")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            self = .cannotOpen(path: path, reason: error.message ?? "\(error)")
        default: self = .sqlite(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error)")
        }
    }
}
