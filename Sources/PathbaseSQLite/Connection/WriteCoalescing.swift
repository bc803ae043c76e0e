import CPathbaseVFS
import GRDBSQLite

/// Opens files through the write-coalescing VFS (`Sources/CPathbaseVFS`), which writes
/// the frames of each WAL commit to the file with one system call instead of two per page
/// changed.
///
/// GRDB opens connections with the default VFS, so the coalescing VFS is made the default
/// for the time of one opening (under a lock of its own) and the previous default restored.
/// A connection keeps the VFS it was opened with, and so does every file it opens later
/// (its WAL). An app that made another VFS the default keeps it; files opened meanwhile by
/// other code on other threads get the coalescing VFS, which is transparent for them.
/// Pathbase's own read-only openings take the same lock without the switch, so they never
/// get it by chance.
enum WriteCoalescing {

    /// Runs `open` with the coalescing VFS as the default when `enabled`, with the default
    /// VFS otherwise; one opening at a time either way.
    static func opening<T>(enabled: Bool, _ open: () throws -> T) rethrows -> T {
        let began = pathbase_vfs_begin_opening(enabled ? 1 : 0)
        defer { pathbase_vfs_end_opening(began) }
        return try open()
    }
}

extension SQLiteDatabase {
    /// The writes made to this file's WAL through this database so far; `nil` for a
    /// database in memory or opened for reading only (for tests of the coalescing VFS).
    package var walWritesMade: Int64? {
        reporting(nil) { () throws(SQLiteDatabaseError) -> Int64? in
            var count: sqlite3_int64 = 0
            guard sqlite3_file_control(try openHandle(), "main", PATHBASE_FCNTL_WAL_WRITES, &count) == SQLITE_OK else { return nil }
            return count
        }
    }
}
