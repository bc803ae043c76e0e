// A VFS for the storage tests: the default VFS underneath, with two additions.
//
// Faults. It counts the write, read, sync, truncate and file-size calls made on the
// database, WAL and journal files opened through it, and can fail the Nth one: with ENOSPC
// (a write stores its first half, then fails with SQLITE_FULL, as a disk that fills up
// mid-write does) or with EIO (the call does nothing and fails with SQLITE_IOERR_*). Once
// (a glitch), or persistently: every counted call from the Nth on, until it is disarmed or
// reset (a disk that went bad). It can fail, counted the same way, the opening of any file,
// the deletion of any file, the database's shared-memory map and lock calls, and any call on
// a sub-journal.
//
// Images. It keeps, for every such file, its content as written so far and its content
// as of its last successful sync, and writes either as files: the crash image (what the
// files hold if the process dies now: every write that returned is in the operating
// system's cache) and the power-loss image (what they hold if the power goes now, taking
// every write that was not synced: the worst case the storage allows).
//
// Test code only: one global state under a mutex; files opened through it are slower (each
// sync copies the file's content).

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "CPathbaseFaultVFS.h"

typedef struct image {
    unsigned char *bytes;
    sqlite3_int64 length, capacity;
    int exists;
} image;

typedef struct tracked {
    struct tracked *next;
    char *path;
    image written, synced;
} tracked;

typedef struct {
    sqlite3_file base;
    tracked *state;   // NULL: a file not tracked (temporary files)
    int subjournal;   // a sub-journal: its calls are counted (PATHBASE_FAULT_SUBJOURNAL), not tracked
    sqlite3_file *real;
} faultFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tracked *files;
static long armedIndex = -1, counted;
static int armedMask, armedError, armedPersistent, fired;
static sqlite3_vfs faultVFS;
static sqlite3_vfs *realVFS;

// MARK: Images

static int reserve(image *im, sqlite3_int64 length) {
    if (length <= im->capacity) return 1;
    sqlite3_int64 next = im->capacity ? im->capacity : 4096;
    while (next < length) next *= 2;
    unsigned char *grown = realloc(im->bytes, (size_t)next);
    if (!grown) return 0;
    im->bytes = grown;
    im->capacity = next;
    return 1;
}

static int imageWrite(image *im, const void *data, int amount, sqlite3_int64 offset) {
    if (!reserve(im, offset + amount)) return 0;
    if (offset > im->length) memset(im->bytes + im->length, 0, (size_t)(offset - im->length));
    memcpy(im->bytes + offset, data, (size_t)amount);
    if (offset + amount > im->length) im->length = offset + amount;
    im->exists = 1;
    return 1;
}

static int imageTruncate(image *im, sqlite3_int64 length) {
    if (length > im->length) {
        if (!reserve(im, length)) return 0;
        memset(im->bytes + im->length, 0, (size_t)(length - im->length));
    }
    im->length = length;
    return 1;
}

static int imageCopy(image *to, const image *from) {
    if (!reserve(to, from->length)) return 0;
    if (from->length) memcpy(to->bytes, from->bytes, (size_t)from->length);
    to->length = from->length;
    to->exists = from->exists;
    return 1;
}

static tracked *find(const char *path) {
    for (tracked *t = files; t; t = t->next) {
        if (strcmp(t->path, path) == 0) return t;
    }
    return NULL;
}

static void forget(tracked *t) {
    free(t->path);
    free(t->written.bytes);
    free(t->synced.bytes);
    free(t);
}

// MARK: Faults

/// Whether this call fails: counts it if armed for its kind (under the lock).
static int shouldFail(int kind) {
    if (!(armedMask & kind)) return 0;
    long index = counted++;
    if (armedIndex < 0) return 0;
    if (armedPersistent ? index >= armedIndex : index == armedIndex && !fired) {
        if (!fired) fired = kind;
        return 1;
    }
    return 0;
}

// MARK: I/O methods

static int faultClose(sqlite3_file *file) {
    faultFile *f = (faultFile *)file;
    int code = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    f->base.pMethods = NULL;
    return code;
}

/// The kind a call of `kind` on the file is counted as: its own, or for a sub-journal's, that.
static int kindOf(faultFile *f, int kind) { return f->subjournal ? PATHBASE_FAULT_SUBJOURNAL : kind; }

static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    faultFile *f = (faultFile *)file;
    if (f->state || f->subjournal) {
        pthread_mutex_lock(&lock);
        int fail = shouldFail(kindOf(f, PATHBASE_FAULT_READ));
        pthread_mutex_unlock(&lock);
        if (fail) return SQLITE_IOERR_READ;
    }
    return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int faultWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    faultFile *f = (faultFile *)file;
    if (!f->state && !f->subjournal) return f->real->pMethods->xWrite(f->real, data, amount, offset);
    pthread_mutex_lock(&lock);
    int fail = shouldFail(kindOf(f, PATHBASE_FAULT_WRITE));
    int code;
    if (fail && armedError == PATHBASE_FAULT_EIO) {
        code = SQLITE_IOERR_WRITE;
    } else {
        int written = fail ? amount / 2 : amount;
        code = written ? f->real->pMethods->xWrite(f->real, data, written, offset) : SQLITE_OK;
        if (code == SQLITE_OK && written && f->state && !imageWrite(&f->state->written, data, written, offset)) code = SQLITE_NOMEM;
        if (code == SQLITE_OK && fail) code = SQLITE_FULL;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    faultFile *f = (faultFile *)file;
    if (!f->state && !f->subjournal) return f->real->pMethods->xTruncate(f->real, size);
    pthread_mutex_lock(&lock);
    int code = shouldFail(kindOf(f, PATHBASE_FAULT_TRUNCATE)) ? SQLITE_IOERR_TRUNCATE : f->real->pMethods->xTruncate(f->real, size);
    if (code == SQLITE_OK && f->state && !imageTruncate(&f->state->written, size)) code = SQLITE_NOMEM;
    pthread_mutex_unlock(&lock);
    return code;
}

static int faultSync(sqlite3_file *file, int flags) {
    faultFile *f = (faultFile *)file;
    if (!f->state && !f->subjournal) return f->real->pMethods->xSync(f->real, flags);
    pthread_mutex_lock(&lock);
    int code = shouldFail(kindOf(f, PATHBASE_FAULT_SYNC)) ? SQLITE_IOERR_FSYNC : f->real->pMethods->xSync(f->real, flags);
    if (code == SQLITE_OK && f->state && !imageCopy(&f->state->synced, &f->state->written)) code = SQLITE_NOMEM;
    pthread_mutex_unlock(&lock);
    return code;
}

static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    faultFile *f = (faultFile *)file;
    if (f->state || f->subjournal) {
        pthread_mutex_lock(&lock);
        int fail = shouldFail(kindOf(f, PATHBASE_FAULT_FILE_SIZE));
        pthread_mutex_unlock(&lock);
        if (fail) return SQLITE_IOERR_FSTAT;
    }
    return f->real->pMethods->xFileSize(f->real, size);
}

static int faultLock(sqlite3_file *file, int level) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int faultUnlock(sqlite3_file *file, int level) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int faultCheckReservedLock(sqlite3_file *file, int *out) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int faultFileControl(sqlite3_file *file, int op, void *argument) {
    faultFile *f = (faultFile *)file;
    if (op == SQLITE_FCNTL_VFSNAME) {
        char **name = argument;
        sqlite3_free(*name);
        *name = sqlite3_mprintf("%s", faultVFS.zName);
        return SQLITE_OK;
    }
    return f->real->pMethods->xFileControl(f->real, op, argument);
}

static int faultSectorSize(sqlite3_file *file) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int faultDeviceCharacteristics(sqlite3_file *file) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/// Whether this call of `kind` fails (takes the lock).
static int fails(int kind) {
    pthread_mutex_lock(&lock);
    int fail = shouldFail(kind);
    pthread_mutex_unlock(&lock);
    return fail;
}

static int faultShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    faultFile *f = (faultFile *)file;
    if (f->state && fails(PATHBASE_FAULT_SHM)) {
        *out = NULL;
        return SQLITE_IOERR_SHMMAP;
    }
    return f->real->pMethods->xShmMap(f->real, region, size, extend, out);
}

static int faultShmLock(sqlite3_file *file, int offset, int count, int flags) {
    faultFile *f = (faultFile *)file;
    // Only taking a lock fails: SQLite does not expect a release to.
    if (f->state && (flags & SQLITE_SHM_LOCK) && fails(PATHBASE_FAULT_SHM)) return SQLITE_IOERR_SHMLOCK;
    return f->real->pMethods->xShmLock(f->real, offset, count, flags);
}

static void faultShmBarrier(sqlite3_file *file) {
    faultFile *f = (faultFile *)file;
    f->real->pMethods->xShmBarrier(f->real);
}

static int faultShmUnmap(sqlite3_file *file, int delete) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xShmUnmap(f->real, delete);
}

static int faultFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xFetch(f->real, offset, amount, out);
}

static int faultUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    faultFile *f = (faultFile *)file;
    return f->real->pMethods->xUnfetch(f->real, offset, pointer);
}

// Version 1 (no shared memory, no mapping) and version 3: the same as the real file's.
static const sqlite3_io_methods methods1 = {
    1, faultClose, faultRead, faultWrite, faultTruncate, faultSync, faultFileSize, faultLock, faultUnlock,
    faultCheckReservedLock, faultFileControl, faultSectorSize, faultDeviceCharacteristics,
    0, 0, 0, 0, 0, 0,
};
static const sqlite3_io_methods methods2 = {
    2, faultClose, faultRead, faultWrite, faultTruncate, faultSync, faultFileSize, faultLock, faultUnlock,
    faultCheckReservedLock, faultFileControl, faultSectorSize, faultDeviceCharacteristics,
    faultShmMap, faultShmLock, faultShmBarrier, faultShmUnmap, 0, 0,
};
static const sqlite3_io_methods methods3 = {
    3, faultClose, faultRead, faultWrite, faultTruncate, faultSync, faultFileSize, faultLock, faultUnlock,
    faultCheckReservedLock, faultFileControl, faultSectorSize, faultDeviceCharacteristics,
    faultShmMap, faultShmLock, faultShmBarrier, faultShmUnmap, faultFetch, faultUnfetch,
};

// MARK: VFS methods

/// The file's state, made with its current content on first sight (under the lock).
static tracked *track(const char *path, sqlite3_file *real) {
    tracked *t = find(path);
    if (t) return t;
    t = calloc(1, sizeof(tracked));
    if (!t) return NULL;
    t->path = strdup(path);
    sqlite3_int64 size = 0;
    if (!t->path || real->pMethods->xFileSize(real, &size) != SQLITE_OK || !reserve(&t->written, size)) {
        forget(t);
        return NULL;
    }
    if (size > 0 && real->pMethods->xRead(real, t->written.bytes, (int)size, 0) != SQLITE_OK) {
        forget(t);
        return NULL;
    }
    t->written.length = size;
    t->written.exists = 1;
    // What was on disk before is taken as synced.
    if (!imageCopy(&t->synced, &t->written)) {
        forget(t);
        return NULL;
    }
    t->next = files;
    files = t;
    return t;
}

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    faultFile *f = (faultFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)&f[1];
    if (fails(PATHBASE_FAULT_OPEN)) return SQLITE_CANTOPEN;
    int code = realVFS->xOpen(realVFS, name, f->real, flags, outFlags);
    if (code != SQLITE_OK || !f->real->pMethods) {
        f->base.pMethods = NULL;
        return code;
    }
    f->subjournal = (flags & SQLITE_OPEN_SUBJOURNAL) != 0;
    if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))) {
        pthread_mutex_lock(&lock);
        f->state = track(name, f->real);
        pthread_mutex_unlock(&lock);
        if (!f->state) {
            f->real->pMethods->xClose(f->real);
            f->base.pMethods = NULL;
            return SQLITE_NOMEM;
        }
    }
    int version = f->real->pMethods->iVersion;
    f->base.pMethods = version >= 3 ? &methods3 : version == 2 ? &methods2 : &methods1;
    return SQLITE_OK;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    if (fails(PATHBASE_FAULT_DELETE)) return SQLITE_IOERR_DELETE;
    int code = realVFS->xDelete(realVFS, name, syncDirectory);
    if (code == SQLITE_OK || code == SQLITE_IOERR_DELETE_NOENT) {
        pthread_mutex_lock(&lock);
        tracked *t = find(name);
        if (t) {
            t->written.length = t->synced.length = 0;
            t->written.exists = t->synced.exists = 0;
        }
        pthread_mutex_unlock(&lock);
    }
    return code;
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, out);
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return realVFS->xDlOpen(realVFS, name); }
static void faultDlError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; realVFS->xDlError(realVFS, size, out); }
static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVFS->xDlSym(realVFS, handle, symbol);
}
static void faultDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; realVFS->xDlClose(realVFS, handle); }
static int faultRandomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return realVFS->xRandomness(realVFS, size, out); }
static int faultSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return realVFS->xSleep(realVFS, microseconds); }
static int faultCurrentTime(sqlite3_vfs *vfs, double *out) { (void)vfs; return realVFS->xCurrentTime(realVFS, out); }
static int faultGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVFS->xGetLastError ? realVFS->xGetLastError(realVFS, size, out) : 0;
}
static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    if (realVFS->iVersion >= 2 && realVFS->xCurrentTimeInt64) return realVFS->xCurrentTimeInt64(realVFS, out);
    double now = 0;
    int code = realVFS->xCurrentTime(realVFS, &now);
    *out = (sqlite3_int64)(now * 86400000.0);
    return code;
}

// MARK: Control

int pathbase_fault_register(void) {
    pthread_mutex_lock(&lock);
    int code = SQLITE_OK;
    if (!realVFS) {
        sqlite3_vfs *base = sqlite3_vfs_find(NULL);
        if (!base) {
            code = SQLITE_ERROR;
        } else {
            realVFS = base;
            faultVFS = (sqlite3_vfs){
                .iVersion = 2,
                .szOsFile = (int)sizeof(faultFile) + base->szOsFile,
                .mxPathname = base->mxPathname,
                .zName = "pathbase-fault",
                .xOpen = faultOpen,
                .xDelete = faultDelete,
                .xAccess = faultAccess,
                .xFullPathname = faultFullPathname,
                .xDlOpen = faultDlOpen,
                .xDlError = faultDlError,
                .xDlSym = faultDlSym,
                .xDlClose = faultDlClose,
                .xRandomness = faultRandomness,
                .xSleep = faultSleep,
                .xCurrentTime = faultCurrentTime,
                .xGetLastError = faultGetLastError,
                .xCurrentTimeInt64 = faultCurrentTimeInt64,
            };
            code = sqlite3_vfs_register(&faultVFS, 0);
            if (code != SQLITE_OK) realVFS = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return code;
}

const char *pathbase_fault_vfs_name(void) { return "pathbase-fault"; }

void pathbase_fault_reset(void) {
    pthread_mutex_lock(&lock);
    while (files) {
        tracked *next = files->next;
        forget(files);
        files = next;
    }
    armedIndex = -1;
    armedMask = 0;
    armedPersistent = 0;
    counted = 0;
    fired = 0;
    pthread_mutex_unlock(&lock);
}

void pathbase_fault_arm(long index, int mask, int error, int persistent) {
    pthread_mutex_lock(&lock);
    armedIndex = index;
    armedMask = mask;
    armedError = error;
    armedPersistent = persistent;
    counted = 0;
    fired = 0;
    pthread_mutex_unlock(&lock);
}

long pathbase_fault_count(void) {
    pthread_mutex_lock(&lock);
    long value = counted;
    pthread_mutex_unlock(&lock);
    return value;
}

int pathbase_fault_fired(void) {
    pthread_mutex_lock(&lock);
    int value = fired;
    pthread_mutex_unlock(&lock);
    return value;
}

static int writeImage(const image *im, const char *out) {
    if (!im || !im->exists) {
        if (unlink(out) != 0 && errno != ENOENT) return SQLITE_IOERR_DELETE;
        return SQLITE_OK;
    }
    FILE *file = fopen(out, "wb");
    if (!file) return SQLITE_CANTOPEN;
    size_t length = (size_t)im->length;
    int ok = (length == 0 || fwrite(im->bytes, 1, length, file) == length);
    ok = fclose(file) == 0 && ok;
    return ok ? SQLITE_OK : SQLITE_IOERR_WRITE;
}

int pathbase_fault_image(const char *path, const char *out, int power_loss) {
    if (!realVFS) return SQLITE_MISUSE;
    int size = realVFS->mxPathname + 1;
    char *full = malloc((size_t)size + 16);
    char *target = malloc(strlen(out) + 16);
    if (!full || !target) { free(full); free(target); return SQLITE_NOMEM; }
    int code = realVFS->xFullPathname(realVFS, path, size, full);
    if (code != SQLITE_OK && code != SQLITE_OK_SYMLINK) { free(full); free(target); return code; }
    code = SQLITE_OK;
    size_t length = strlen(full);
    const char *suffixes[] = { "", "-wal", "-journal" };
    pthread_mutex_lock(&lock);
    for (int i = 0; i < 3 && code == SQLITE_OK; i++) {
        full[length] = 0;
        strcat(full, suffixes[i]);
        snprintf(target, strlen(out) + 16, "%s%s", out, suffixes[i]);
        tracked *t = find(full);
        code = writeImage(t ? (power_loss ? &t->synced : &t->written) : NULL, target);
    }
    pthread_mutex_unlock(&lock);
    free(full);
    free(target);
    return code;
}
