import CPathbaseBodies
import Foundation
import GRDB
import GRDBSQLite
import Pathbase

/// The SQLite connection of an ``SQLiteDatabase``: opened, configured and given its tables
/// by GRDB, then used through its C handle.
///
/// GRDB's `DatabaseQueue` serializes every access on a dispatch queue and wraps each
/// statement in Swift objects; measured on this machine kind, GRDB's cached statements cost
/// 1.3–1.9× raw SQLite per operation, more than the targets allow (cold get ≤ 1.5× raw).
/// So GRDB does what it does best — opening, configuration (WAL, busy timeout,
/// `synchronous`), schema and error mapping — and the hot paths run the raw prepared
/// ``Statements`` on the same connection, serialized by the database's own lock. GRDB is
/// not used again until ``close()``; its transaction observation hooks are detached.
final class Connection {

    let queue: DatabaseQueue
    let handle: OpaquePointer
    /// The file's setting: the options' if they set one (a mismatch throws), else the
    /// existing file's, else (a new file) `true`.
    let keepsHistory: Bool
    /// The newest timestamp stored, to move the clock past.
    let newestTimestamp: Pathbase.Timestamp?

    /// Opens a file (`path`) or a new in-memory database (`path == nil`).
    init(path: String?, options: SQLiteDatabase.Options) throws(SQLiteDatabaseError) {
        let displayPath = path ?? ":memory:"
        var configuration = Configuration()
        configuration.label = "Pathbase"
        configuration.busyMode = .timeout(options.busyTimeout)
        let cacheSize = options.cacheSizeInKiB
        let mapSize = Int64(options.memoryMapSizeInMiB) << 20
        let walSize = Int64(options.walSizeInMiB) << 20
        configuration.prepareDatabase { db in
            // Bodies are read through these (the `current_values` view, value indexes).
            try Self.registerBodyFunctions(db)
            // Negative: a size in KiB rather than in pages.
            try db.execute(sql: "PRAGMA cache_size = -\(cacheSize)")
            // These answer the value set (capped by SQLite's build), so they are queries.
            _ = try Int64.fetchOne(db, sql: "PRAGMA mmap_size = \(mapSize)")
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            _ = try Int64.fetchOne(db, sql: "PRAGMA wal_autocheckpoint = \(walSize / max(512, pageSize))")
        }
        #if os(iOS)
            // GRDB would release memory on its own queue, concurrently with our statements.
            configuration.automaticMemoryManagement = false
        #endif
        do {
            let wanted = options.keepsHistory
            var existing: Bool?
            if let path {
                // Rejects a file that is not Pathbase's before anything writes to it.
                switch try FileCheck.inspect(path: path, busyTimeout: options.busyTimeout) {
                case .pathbase(let fileKeepsHistory):
                    if let wanted, wanted != fileKeepsHistory {
                        throw SQLiteDatabaseError.historyModeMismatch(path: path, fileKeepsHistory: fileKeepsHistory)
                    }
                    existing = fileKeepsHistory
                case .empty:
                    if options.readOnly { throw SQLiteDatabaseError.noDatabase(path: path) }
                }
                if options.readOnly {
                    configuration.readonly = true
                } else {
                    configuration.journalMode = .wal
                    if options.exclusiveLocking {
                        configuration.prepareDatabase { db in
                            _ = try String.fetchOne(db, sql: "PRAGMA locking_mode = EXCLUSIVE")
                        }
                    }
                }
                queue = try DatabaseQueue(path: options.vfsName.map { Self.uri(path: path, vfs: $0) } ?? path, configuration: configuration)
            } else {
                guard !options.readOnly else { throw SQLiteDatabaseError.noDatabase(path: displayPath) }
                queue = try DatabaseQueue(configuration: configuration)
            }
            let readOnly = options.readOnly
            let synchronous = options.synchronization.pragmaValue
            let opened = try queue.inDatabase { db throws -> (OpaquePointer?, Bool, Pathbase.Timestamp?) in
                if !readOnly {
                    // After GRDB's WAL set-up, which sets NORMAL. With WAL, NORMAL keeps every
                    // commit atomic and the file consistent across crashes; only the last
                    // commits may be lost at a power cut. FULL syncs the WAL at every commit.
                    // See `Options.synchronization`.
                    try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
                }
                var fileKeepsHistory = wanted ?? existing ?? true
                if readOnly {
                    let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                    guard version == Schema.formatVersion else {
                        // Bringing it to the current format would write.
                        throw SQLiteDatabaseError.cannotOpen(
                            path: displayPath, reason: "it has the older storage format \(version); open it once for writing to bring it to format \(Schema.formatVersion)")
                    }
                } else {
                    try db.inTransaction(.immediate) {
                        // Checked again under the write lock: another process may have created it.
                        let applicationId = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                        let tableCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
                        if applicationId == 0, tableCount == 0 {
                            try Schema.create(in: db, keepsHistory: fileKeepsHistory)
                        } else if applicationId != Schema.applicationId {
                            throw SQLiteDatabaseError.notPathbase(path: displayPath)
                        } else if version > Schema.formatVersion {
                            throw SQLiteDatabaseError.newerFormat(path: displayPath, found: version, supported: Schema.formatVersion)
                        } else {
                            fileKeepsHistory = try Schema.keepsHistory(in: db) ?? fileKeepsHistory
                            try Schema.migrate(db, from: version, keepsHistory: fileKeepsHistory)
                        }
                        return .commit
                    }
                }
                if let wanted, fileKeepsHistory != wanted {
                    throw SQLiteDatabaseError.historyModeMismatch(path: displayPath, fileKeepsHistory: fileKeepsHistory)
                }
                // The newest record: the last of `record_times`, or of the runs that start
                // within a run's span of the last one.
                var newest = try Row.fetchOne(db, sql: "SELECT time, counter, replica FROM record_times ORDER BY time DESC, counter DESC, replica DESC LIMIT 1")
                    .map { row in
                        Pathbase.Timestamp(time: row[0], counter: UInt32(truncatingIfNeeded: row[1] as Int64), replica: UInt32(truncatingIfNeeded: row[2] as Int64))
                    }
                let lastRuns = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT time, replica, records FROM record_runs WHERE time >= (SELECT max(time) FROM record_runs) - ?
                        """, arguments: [RecordRun.maximumSpan])
                for row in lastRuns {
                    let bytes: Data = row[2] ?? Data()
                    let replica = UInt32(truncatingIfNeeded: row[1] as Int64)
                    let records = bytes.withUnsafeBytes { RecordRun.decode($0, firstTime: row[0], firstReplica: replica) }
                    for record in records ?? [] where newest.map({ record.timestamp > $0 }) ?? true {
                        newest = record.timestamp
                    }
                }
                if let handle = db.sqliteConnection {
                    // GRDB's transaction observation (commit and rollback hooks, and the
                    // authorizer that feeds it) expects every statement to run on GRDB's
                    // queue. Ours don't, and nothing observes this connection: detach them.
                    sqlite3_commit_hook(handle, nil, nil)
                    sqlite3_rollback_hook(handle, nil, nil)
                    sqlite3_set_authorizer(handle, nil, nil)
                }
                return (db.sqliteConnection, fileKeepsHistory, newest)
            }
            guard let handle = opened.0 else {
                throw SQLiteDatabaseError.cannotOpen(path: displayPath, reason: "no connection")
            }
            self.handle = handle
            self.keepsHistory = opened.1
            self.newestTimestamp = opened.2
        } catch let error as SQLiteDatabaseError {
            throw error
        } catch let error as DatabaseError {
            throw SQLiteDatabaseError(error, path: displayPath)
        } catch {
            throw .cannotOpen(path: displayPath, reason: "\(error)")
        }
    }

    /// A `file:` URI that opens `path` through the VFS named `vfs`.
    static func uri(path: String, vfs: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escapedPath = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        let escapedVFS = vfs.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? vfs
        return "file:\(escapedPath)?vfs=\(escapedVFS)"
    }

    /// Registers the SQL functions that read instance bodies on a connection.
    static func registerBodyFunctions(_ db: GRDB.Database) throws {
        let code = pathbase_register_bodies(UnsafeMutableRawPointer(db.sqliteConnection))
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not register Pathbase's SQL functions")
        }
    }

    /// Closes the connection; every statement must be finalized before. Throws when SQLite
    /// can't close it (a statement left open), which leaves the file open.
    func close() throws(SQLiteDatabaseError) {
        do {
            try queue.close()
        } catch let error as DatabaseError {
            throw .sqlite(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error)")
        } catch {
            throw .sqlite(code: SQLITE_ERROR, message: "\(error)")
        }
    }
}
