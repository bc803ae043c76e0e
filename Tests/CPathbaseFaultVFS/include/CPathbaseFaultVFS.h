// A fault-injecting SQLite VFS for the tests: see fault_vfs.c.
#ifndef CPATHBASE_FAULT_VFS_H
#define CPATHBASE_FAULT_VFS_H

/// The calls that can fail, as a mask for `pathbase_fault_arm`.
enum {
    PATHBASE_FAULT_WRITE = 1,
    PATHBASE_FAULT_READ = 2,
    PATHBASE_FAULT_SYNC = 4,
    PATHBASE_FAULT_TRUNCATE = 8,
    PATHBASE_FAULT_FILE_SIZE = 16,
    /// The calls above, on the database, WAL and journal files.
    PATHBASE_FAULT_ALL = 31,
    /// xOpen of any file (fails with SQLITE_CANTOPEN, the file not opened).
    PATHBASE_FAULT_OPEN = 32,
    /// xDelete of any file (fails with SQLITE_IOERR_DELETE, the file kept).
    PATHBASE_FAULT_DELETE = 64,
    /// The database file's shared-memory calls: xShmMap (SQLITE_IOERR_SHMMAP) and the
    /// taking of an xShmLock lock (SQLITE_IOERR_SHMLOCK, not taken); a release never fails.
    PATHBASE_FAULT_SHM = 128,
    /// Any I/O call on a sub-journal (the savepoints' journal, a temporary file once it
    /// outgrows memory), with the error its kind fails with above.
    PATHBASE_FAULT_SUBJOURNAL = 256,
};

/// The error a failed call reports.
enum {
    /// The disk is full: a write stores its first half and fails with SQLITE_FULL; the other
    /// calls fail with their SQLITE_IOERR_* code.
    PATHBASE_FAULT_ENOSPC = 0,
    /// An I/O error: the call does nothing and fails with its SQLITE_IOERR_* code.
    PATHBASE_FAULT_EIO = 1,
};

/// Registers the VFS as "pathbase-fault" (not as the default), over the default VFS.
/// Idempotent; returns an SQLite result code.
int pathbase_fault_register(void);

/// The VFS's name.
const char *pathbase_fault_vfs_name(void);

/// Forgets every file's images and counts, and disarms. Call with no file open through the VFS.
void pathbase_fault_reset(void);

/// Fails the call numbered `index` (from 0, counted from now over the calls `mask` names,
/// on the database, WAL and journal files opened through the VFS) with `error`: once, or
/// with `persistent` non-zero every such call from it on, until the next arming or reset.
/// A negative index disarms.
void pathbase_fault_arm(long index, int mask, int error, int persistent);

/// The calls `mask` names counted since the last reset or arming.
long pathbase_fault_count(void);

/// The kind of the (first) call that failed (a PATHBASE_FAULT_* bit), 0 while none has.
int pathbase_fault_fired(void);

/// Writes an image of the database at `path` and its WAL and journal, as the VFS saw them
/// written, to `out` (and `out`-wal, `out`-journal): with `power_loss` 0 the crash image
/// (everything written so far), with 1 the power-loss image (each file as of its last
/// successful sync). A file that does not exist in the image is removed at `out`. Returns
/// an SQLite result code.
int pathbase_fault_image(const char *path, const char *out, int power_loss);

#endif
