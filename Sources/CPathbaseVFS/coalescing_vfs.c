// A VFS that writes a WAL commit with one system call.
//
// SQLite appends each frame of a commit to the write-ahead log with two writes (its 24-byte
// header, then the page), so a commit that changes six pages costs twelve `pwrite` calls;
// where system calls are dear (2–8 µs each on the virtual machines Pathbase is measured on)
// they are most of a small commit's time. This VFS wraps the default one and, for WAL files
// only, keeps consecutive appends in a buffer that goes to the file in one write:
//
// - when the page of a commit frame has been appended (a frame header whose "database size
//   after commit" field is not zero marks it, as the WAL file format defines), so the commit
//   is in the file before its `xWrite` returns and before SQLite publishes it in the
//   wal-index: readers in other connections and processes never see a frame that is not
//   written, and a crash of the process loses no committed frame (as without the VFS, with
//   `synchronous = NORMAL` the kernel holds them until the checkpoint syncs);
// - before any other operation on the WAL (read, sync, truncate, size, file control,
//   close), before a write that does not append, and when the buffer holds 96 KiB;
// - before the database file's shared-memory barrier, lock changes and unmapping: SQLite
//   passes the barrier before it publishes a commit, a second guard that nothing published
//   is still buffered.
//
// Other files (the database, journals, temporary files) are passed through unchanged. A
// failed write of the buffer returns its error from the call that wrote it, as the wrapped
// VFS's own write would have.

#include <sqlite3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "CPathbaseVFS.h"

// The unix VFS writes at most 128 KiB per call (it masks larger sizes), and SQLite's own
// writes are at most a 64 KiB page: appends are written once they reach 96 KiB.
enum { BUFFER_LIMIT = 96 * 1024, FRAME_HEADER_SIZE = 24 };

typedef struct CoalescingFile CoalescingFile;
struct CoalescingFile {
    sqlite3_file base;
    /// The wrapped VFS's file, stored right after this struct.
    sqlite3_file *real;
    int isWAL;
    /// A database file: its open WAL. A WAL: its database file (either may be NULL).
    CoalescingFile *wal;
    CoalescingFile *database;
    unsigned char *buffer;
    int used;
    int capacity;
    sqlite3_int64 offset;
    /// The last append was the header of a commit frame: its page completes the commit.
    int commitPending;
    /// A write of the buffer failed where the failure could not be returned to SQLite
    /// (see `flush`): the buffer is kept until a write of it succeeds.
    int keepBuffer;
    /// A database file: the writes made to its WALs (see PATHBASE_FCNTL_WAL_WRITES).
    sqlite3_int64 walWrites;
};

static sqlite3_vfs *wrapped;
static sqlite3_vfs coalescingVFS;
static sqlite3_io_methods methods[3];

static size_t headerSize(void) {
    return (sizeof(CoalescingFile) + 7) & ~(size_t)7;
}

static int isOurs(const sqlite3_file *file) {
    if (file == NULL || file->pMethods == NULL) return 0;
    return file->pMethods == &methods[0] || file->pMethods == &methods[1] || file->pMethods == &methods[2];
}

static int writeThrough(CoalescingFile *file, const void *data, int amount, sqlite3_int64 offset) {
    if (file->database != NULL) file->database->walWrites += 1;
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

/// Writes the buffered appends; empty afterwards unless the write failed and the buffer is
/// kept. A failure in a call that returns it to SQLite fails the statement or commit that
/// wrote them, which SQLite rolls back: the buffer is dropped (written later, a commit SQLite
/// rolled back would be found valid by the next recovery). `published`: the call cannot fail
/// (the shared-memory barrier) or SQLite ignores its failure (unlocking), so what is buffered
/// counts as written for SQLite; on a failure it is kept, and every later operation on the
/// WAL writes it first and returns the error until a write succeeds. Buffered appends reach
/// those calls only if a commit's last frame went unrecognised.
static int flush(CoalescingFile *file, int published) {
    if (file == NULL || file->used == 0) return SQLITE_OK;
    int rc = writeThrough(file, file->buffer, file->used, file->offset);
    if (rc != SQLITE_OK && (published || file->keepBuffer)) {
        file->keepBuffer = 1;
        return rc;
    }
    file->used = 0;
    file->commitPending = 0;
    file->keepBuffer = 0;
    return rc;
}

static unsigned int bigEndian32(const unsigned char *bytes) {
    return ((unsigned int)bytes[0] << 24) | ((unsigned int)bytes[1] << 16) | ((unsigned int)bytes[2] << 8) | bytes[3];
}

// MARK: I/O methods

static int xClose(sqlite3_file *pFile) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int flushed = flush(file, 0);
    if (file->database != NULL) file->database->wal = NULL;
    if (file->wal != NULL) file->wal->database = NULL;
    int closed = file->real->pMethods->xClose(file->real);
    free(file->buffer);
    file->buffer = NULL;
    return flushed != SQLITE_OK ? flushed : closed;
}

static int xRead(sqlite3_file *pFile, void *data, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file, 0);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int xWrite(sqlite3_file *pFile, const void *data, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    if (!file->isWAL) return writeThrough(file, data, amount, offset);
    int completesCommit = file->commitPending;
    int rc;
    if (file->used > 0 && offset != file->offset + file->used) {
        rc = flush(file, 0);
        if (rc != SQLITE_OK) return rc;
    }
    if (file->used + amount > file->capacity) {
        int wanted = file->used + amount;
        if (wanted > BUFFER_LIMIT) {
            rc = flush(file, 0);
            if (rc != SQLITE_OK) return rc;
            if (amount > BUFFER_LIMIT) return writeThrough(file, data, amount, offset);
            wanted = amount;
        }
        int capacity = file->capacity > 0 ? file->capacity : 32 * 1024;
        while (capacity < wanted) capacity *= 2;
        unsigned char *grown = realloc(file->buffer, (size_t)capacity);
        if (grown == NULL) {
            rc = flush(file, 0);
            if (rc != SQLITE_OK) return rc;
            return writeThrough(file, data, amount, offset);
        }
        file->buffer = grown;
        file->capacity = capacity;
    }
    if (file->used == 0) file->offset = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    if (completesCommit) return flush(file, 0);
    if (amount == FRAME_HEADER_SIZE && bigEndian32((const unsigned char *)data + 4) != 0) {
        file->commitPending = 1;
    } else if (file->used >= BUFFER_LIMIT) {
        return flush(file, 0);
    }
    return SQLITE_OK;
}

static int xTruncate(sqlite3_file *pFile, sqlite3_int64 size) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file, 0);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int xSync(sqlite3_file *pFile, int flags) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file, 0);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xSync(file->real, flags);
}

static int xFileSize(sqlite3_file *pFile, sqlite3_int64 *size) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file, 0);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int xLock(sqlite3_file *pFile, int lock) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xLock(file->real, lock);
}

static int xUnlock(sqlite3_file *pFile, int lock) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file->isWAL ? file : file->wal, 1);
    int unlocked = file->real->pMethods->xUnlock(file->real, lock);
    return rc != SQLITE_OK ? rc : unlocked;
}

static int xCheckReservedLock(sqlite3_file *pFile, int *result) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int xFileControl(sqlite3_file *pFile, int op, void *argument) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    if (op == PATHBASE_FCNTL_WAL_WRITES) {
        *(sqlite3_int64 *)argument = file->walWrites;
        return SQLITE_OK;
    }
    int rc = flush(file, 0);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int xSectorSize(sqlite3_file *pFile) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xSectorSize(file->real);
}

static int xDeviceCharacteristics(sqlite3_file *pFile) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int xShmMap(sqlite3_file *pFile, int region, int size, int extend, void volatile **memory) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int xShmLock(sqlite3_file *pFile, int offset, int count, int flags) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file->wal, 1);
    if (rc != SQLITE_OK && (flags & SQLITE_SHM_LOCK)) return rc;
    int locked = file->real->pMethods->xShmLock(file->real, offset, count, flags);
    return rc != SQLITE_OK ? rc : locked;
}

static void xShmBarrier(sqlite3_file *pFile) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    // A commit's frames are written when its last page is appended; this finds the buffer
    // empty unless SQLite wrote a commit in a way the frame header did not tell.
    (void)flush(file->wal, 1);
    file->real->pMethods->xShmBarrier(file->real);
}

static int xShmUnmap(sqlite3_file *pFile, int deleteFlag) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    int rc = flush(file->wal, 1);
    int unmapped = file->real->pMethods->xShmUnmap(file->real, deleteFlag);
    return rc != SQLITE_OK ? rc : unmapped;
}

static int xFetch(sqlite3_file *pFile, sqlite3_int64 offset, int amount, void **pointer) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int xUnfetch(sqlite3_file *pFile, sqlite3_int64 offset, void *pointer) {
    CoalescingFile *file = (CoalescingFile *)pFile;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

// MARK: VFS methods

static int vfsOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *pFile, int flags, int *outFlags) {
    (void)vfs;
    CoalescingFile *file = (CoalescingFile *)pFile;
    memset(file, 0, sizeof(CoalescingFile));
    file->real = (sqlite3_file *)((char *)pFile + headerSize());
    int rc = wrapped->xOpen(wrapped, name, file->real, flags, outFlags);
    if (file->real->pMethods == NULL) {
        file->base.pMethods = NULL;
        return rc;
    }
    int version = file->real->pMethods->iVersion;
    if (version < 1) version = 1;
    if (version > 3) version = 3;
    file->base.pMethods = &methods[version - 1];
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_WAL) && name != NULL) {
        file->isWAL = 1;
        sqlite3_file *database = sqlite3_database_file_object(name);
        if (isOurs(database)) {
            file->database = (CoalescingFile *)database;
            file->database->wal = file;
        }
    }
    return rc;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return wrapped->xDelete(wrapped, name, syncDirectory);
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return wrapped->xAccess(wrapped, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return wrapped->xFullPathname(wrapped, name, size, output);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return wrapped->xDlOpen(wrapped, name);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    wrapped->xDlError(wrapped, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return wrapped->xDlSym(wrapped, handle, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    wrapped->xDlClose(wrapped, handle);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return wrapped->xRandomness(wrapped, size, output);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return wrapped->xSleep(wrapped, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return wrapped->xCurrentTime(wrapped, time);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return wrapped->xGetLastError ? wrapped->xGetLastError(wrapped, size, message) : 0;
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return wrapped->xCurrentTimeInt64(wrapped, time);
}

// MARK: Registration

static int registration = SQLITE_OK;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void registerOnce(void) {
    wrapped = sqlite3_vfs_find(NULL);
    if (wrapped == NULL) {
        registration = SQLITE_ERROR;
        return;
    }
    sqlite3_io_methods template = {
        3, xClose, xRead, xWrite, xTruncate, xSync, xFileSize, xLock, xUnlock,
        xCheckReservedLock, xFileControl, xSectorSize, xDeviceCharacteristics,
        xShmMap, xShmLock, xShmBarrier, xShmUnmap, xFetch, xUnfetch,
    };
    for (int version = 1; version <= 3; version++) {
        methods[version - 1] = template;
        methods[version - 1].iVersion = version;
    }
    coalescingVFS.iVersion = wrapped->iVersion < 2 ? wrapped->iVersion : 2;
    coalescingVFS.szOsFile = (int)headerSize() + wrapped->szOsFile;
    coalescingVFS.mxPathname = wrapped->mxPathname;
    coalescingVFS.zName = PATHBASE_VFS_NAME;
    coalescingVFS.xOpen = vfsOpen;
    coalescingVFS.xDelete = vfsDelete;
    coalescingVFS.xAccess = vfsAccess;
    coalescingVFS.xFullPathname = vfsFullPathname;
    coalescingVFS.xDlOpen = wrapped->xDlOpen ? vfsDlOpen : NULL;
    coalescingVFS.xDlError = wrapped->xDlError ? vfsDlError : NULL;
    coalescingVFS.xDlSym = wrapped->xDlSym ? vfsDlSym : NULL;
    coalescingVFS.xDlClose = wrapped->xDlClose ? vfsDlClose : NULL;
    coalescingVFS.xRandomness = vfsRandomness;
    coalescingVFS.xSleep = vfsSleep;
    coalescingVFS.xCurrentTime = vfsCurrentTime;
    coalescingVFS.xGetLastError = vfsGetLastError;
    if (coalescingVFS.iVersion >= 2) coalescingVFS.xCurrentTimeInt64 = vfsCurrentTimeInt64;
    registration = sqlite3_vfs_register(&coalescingVFS, 0);
}

static int registerVFS(void) {
    pthread_once(&once, registerOnce);
    return registration;
}

static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

int pathbase_vfs_begin_opening(int coalescing) {
    pthread_mutex_lock(&opening);
    // Without coalescing (a read-only file), the lock alone: no other opening can make the
    // coalescing VFS the default meanwhile.
    if (!coalescing || registerVFS() != SQLITE_OK) return 0;
    // An app that made another VFS the default (encryption, say) keeps it.
    if (sqlite3_vfs_find(NULL) != wrapped) return 0;
    return sqlite3_vfs_register(&coalescingVFS, 1) == SQLITE_OK;
}

void pathbase_vfs_end_opening(int began) {
    if (began) sqlite3_vfs_register(wrapped, 1);
    pthread_mutex_unlock(&opening);
}
