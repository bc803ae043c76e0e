#ifndef CPATHBASEVFS_H
#define CPATHBASEVFS_H

/// The name of the write-coalescing VFS (see coalescing_vfs.c).
#define PATHBASE_VFS_NAME "pathbase-coalescing"

/// Serializes openings; with `coalescing`, also registers the write-coalescing VFS over the
/// current default VFS (once per process) and makes it the default until
/// `pathbase_vfs_end_opening`, so that a connection opened meanwhile by code that names no
/// VFS (GRDB) uses it. Returns whether it did (not without `coalescing`, nor when the app
/// made another VFS the default). Always call `pathbase_vfs_end_opening` with the result.
int pathbase_vfs_begin_opening(int coalescing);

/// Gives the default back to the VFS the write-coalescing one wraps.
void pathbase_vfs_end_opening(int began);

/// A file control of the database file (`sqlite3_file_control(db, "main", …)`) that writes
/// the number of writes made to its WAL files into a `sqlite3_int64`, so that tests can
/// check that a commit's frames went to the file together. Unknown to other VFSs.
#define PATHBASE_FCNTL_WAL_WRITES 0x50420001

#endif
