// Instance bodies: the current records of one instance, packed in one blob.
//
// Format 6 keeps an instance's status and the newest record of each of its properties in
// one row of `instance_values` (model, instance, body) instead of a row per value: listing
// a model reads one row per instance, and an object is one b-tree entry. Format 8 writes
// each record's timestamp against a base the body holds once, so that the records of one
// replica written close together take a few bytes each instead of thirteen.
//
// An empty body is no bytes. Otherwise a body starts with its base, 12 bytes:
//
//   time       8 bytes, little-endian
//   replica    4 bytes, little-endian
//
// then its entries in ascending property order, each:
//
//   property   zigzag varint
//   type tag   zigzag varint (the ValueTag of the Swift side)
//   time       zigzag varint of the time minus the base's (wrapping)
//   counter    varint
//   replica    varint: 0 for the base's replica, else the replica plus one
//   kind       1 byte: null, integer, real, text or blob (how SQLite holds the value)
//   value      integer: zigzag varint; real: 8 bytes, little-endian; text and blob: a
//              varint length, then the bytes; null: nothing
//
// An entry's bytes depend on the base only, so a merge copies the entries it keeps as
// they are into a body with the same base. Format 6 and 7 bodies had no base, and each
// entry's time as 8 fixed bytes and its replica as a plain varint; `pathbase_body_upgrade`
// rewrites them.
//
// SQL reads bodies through the functions and the table-valued function registered here, so
// queries filter and sort on packed values, and expression indexes on `pathbase_value(body,
// P)` are the value indexes. Every function is deterministic and innocuous: indexes and the
// `current_values` view may use them.
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "CPathbaseBodies.h"

// MARK: Varints

/// Where a body is read, and where it ends: kept in registers while an entry is read.
typedef struct {
    const unsigned char *at;
    const unsigned char *end;
} reader;

static int readLongVarint(reader *r, uint64_t *value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->at >= r->end) return 0;
        unsigned char byte = *r->at++;
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) { *value = result; return 1; }
    }
    return 0;
}

// Inlined: most varints of a body are one byte (properties, tags, counters, small
// integers), and a call per varint cost more than reading it.
static inline __attribute__((always_inline)) int readVarint(reader *r, uint64_t *value) {
    if (r->at < r->end && *r->at < 0x80) {
        *value = *r->at++;
        return 1;
    }
    // Two and three bytes (times against the base, lengths) without the loop's bounds
    // check per byte.
    if (r->end - r->at >= 3) {
        const unsigned char *at = r->at;
        if (at[1] < 0x80) {
            *value = (uint64_t)(at[0] & 0x7f) | ((uint64_t)at[1] << 7);
            r->at += 2;
            return 1;
        }
        if (at[2] < 0x80) {
            *value = (uint64_t)(at[0] & 0x7f) | ((uint64_t)(at[1] & 0x7f) << 7) | ((uint64_t)at[2] << 14);
            r->at += 3;
            return 1;
        }
    }
    return readLongVarint(r, value);
}

static int varintSize(uint64_t value) {
    int size = 1;
    while (value >= 0x80) { value >>= 7; size++; }
    return size;
}

static int putVarint(unsigned char *out, uint64_t value) {
    int at = 0;
    while (value >= 0x80) { out[at++] = (unsigned char)(value | 0x80); value >>= 7; }
    out[at++] = (unsigned char)value;
    return at;
}

static uint64_t zigzag(int64_t value) { return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63); }
static int64_t unzigzag(uint64_t value) { return (int64_t)(value >> 1) ^ -(int64_t)(value & 1); }

static inline int64_t readFixed(const unsigned char *bytes) {
    uint64_t value;
    memcpy(&value, bytes, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    return (int64_t)value;
}

static void putFixed(unsigned char *out, int64_t value) {
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)((uint64_t)value >> (8 * i));
}

// MARK: Entries

/// `decode` of ``readEntryRest``: the value without its timestamp.
#define DECODE_VALUE 2

/// Reads the rest of an entry after its property: into `entry` when `decode` (without its
/// timestamp when `DECODE_VALUE`), else only steps over it (a search skipping earlier
/// entries). `base` is the body's, or NULL for a format 6 entry (fixed time, plain
/// replica). 1, or -1 when the bytes are not an entry. Inlined, so that each use keeps
/// only the work it needs.
static inline __attribute__((always_inline)) int readEntryRest(reader *r, const pathbase_base *base, pathbase_entry *entry, int decode) {
    uint64_t tag, time, counter, replica, number;
    if (!readVarint(r, &tag)) return -1;
    if (base) {
        if (!readVarint(r, &time)) return -1;
    } else {
        if (r->end - r->at < 8) return -1;
        time = (uint64_t)readFixed(r->at);
        r->at += 8;
    }
    if (!readVarint(r, &counter) || !readVarint(r, &replica) || r->at >= r->end) return -1;
    if (counter > UINT32_MAX) return -1;
    if (base ? replica > (uint64_t)UINT32_MAX + 1 : replica > UINT32_MAX) return -1;
    int kind = *r->at++;
    if (decode) {
        entry->tag = unzigzag(tag);
        if (decode != DECODE_VALUE) {
            entry->time = base ? (int64_t)((uint64_t)base->time + (uint64_t)unzigzag(time)) : (int64_t)time;
            entry->counter = (uint32_t)counter;
            entry->replica = base ? (replica == 0 ? base->replica : (uint32_t)(replica - 1)) : (uint32_t)replica;
        }
        entry->kind = kind;
        entry->integer = 0;
        entry->real = 0;
        entry->bytes = 0;
        entry->length = 0;
    }
    switch (kind) {
    case PATHBASE_KIND_NULL:
        return 1;
    case PATHBASE_KIND_INTEGER:
        if (!readVarint(r, &number)) return -1;
        if (decode) entry->integer = unzigzag(number);
        return 1;
    case PATHBASE_KIND_REAL:
        if (r->end - r->at < 8) return -1;
        if (decode) {
            int64_t bits = readFixed(r->at);
            memcpy(&entry->real, &bits, 8);
        }
        r->at += 8;
        return 1;
    case PATHBASE_KIND_TEXT:
    case PATHBASE_KIND_BLOB:
        if (!readVarint(r, &number) || number > (uint64_t)(r->end - r->at)) return -1;
        if (decode) {
            entry->bytes = r->at;
            entry->length = (int)number;
        }
        r->at += number;
        return 1;
    default:
        return -1;
    }
}

int pathbase_body_base(const unsigned char *body, int length, pathbase_base *base) {
    if (length <= 0) return 0;
    if (length < PATHBASE_BASE_SIZE) return -1;
    base->time = readFixed(body);
    uint32_t replica = 0;
    for (int i = 0; i < 4; i++) replica |= (uint32_t)body[8 + i] << (8 * i);
    base->replica = replica;
    return 1;
}

void pathbase_base_put(unsigned char *out, const pathbase_base *base) {
    putFixed(out, base->time);
    for (int i = 0; i < 4; i++) out[8 + i] = (unsigned char)(base->replica >> (8 * i));
}

/// Where the entries of a body start, and its base: 0 at the end of an empty body, -1
/// when it is too short to hold a base.
static inline __attribute__((always_inline)) int openBody(const unsigned char *body, int length, int *offset, pathbase_base *base) {
    int has = pathbase_body_base(body, length, base);
    if (has <= 0) return has;
    if (*offset < PATHBASE_BASE_SIZE) *offset = PATHBASE_BASE_SIZE;
    return 1;
}

int pathbase_body_next(const unsigned char *body, int length, int *offset, pathbase_entry *entry) {
    pathbase_base base;
    int opened = openBody(body, length, offset, &base);
    if (opened <= 0) return opened;
    if (*offset >= length) return 0;
    reader r = { body + *offset, body + length };
    uint64_t property;
    if (!readVarint(&r, &property) || readEntryRest(&r, &base, entry, 1) < 0) return -1;
    entry->property = unzigzag(property);
    *offset = (int)(r.at - body);
    return 1;
}

int pathbase_body_find(const unsigned char *body, int length, int64_t property, pathbase_entry *entry) {
    pathbase_base base;
    int offset = 0;
    int opened = openBody(body, length, &offset, &base);
    if (opened <= 0) return opened;
    reader r = { body + offset, body + length };
    while (r.at < r.end) {
        uint64_t read;
        if (!readVarint(&r, &read)) return -1;
        int64_t found = unzigzag(read);
        // Ascending properties: past it, the entry would have come by now.
        if (found > property) return 0;
        if (found == property) {
            entry->property = found;
            return readEntryRest(&r, &base, entry, 1);
        }
        // Earlier entries are stepped over, not decoded.
        if (readEntryRest(&r, &base, entry, 0) < 0) return -1;
    }
    return 0;
}

/// ``pathbase_body_decode`` and ``pathbase_body_decode_values``: `decode` is 1 or
/// `DECODE_VALUE`, a constant in each, so each keeps only its own work.
static inline __attribute__((always_inline)) int decodeBody(const unsigned char *body, int length, pathbase_entry *entries, int capacity, int decode) {
    pathbase_base base;
    int offset = 0;
    int opened = openBody(body, length, &offset, &base);
    if (opened <= 0) return opened;
    reader r = { body + offset, body + length };
    int count = 0;
    pathbase_entry overflow;
    while (r.at < r.end) {
        uint64_t property;
        pathbase_entry *entry = count < capacity ? &entries[count] : &overflow;
        if (!readVarint(&r, &property) || readEntryRest(&r, &base, entry, decode) < 0) return -1;
        entry->property = unzigzag(property);
        count++;
    }
    return count;
}

int pathbase_body_decode(const unsigned char *body, int length, pathbase_entry *entries, int capacity) {
    return decodeBody(body, length, entries, capacity, 1);
}

int pathbase_body_decode_values(const unsigned char *body, int length, pathbase_entry *entries, int capacity) {
    return decodeBody(body, length, entries, capacity, DECODE_VALUE);
}

/// An entry's time against the base's, zigzagged (wrapping: any two times have one).
static uint64_t timeAgainst(const pathbase_entry *entry, const pathbase_base *base) {
    return zigzag((int64_t)((uint64_t)entry->time - (uint64_t)base->time));
}

static uint64_t replicaAgainst(const pathbase_entry *entry, const pathbase_base *base) {
    return entry->replica == base->replica ? 0 : (uint64_t)entry->replica + 1;
}

int pathbase_entry_size(const pathbase_entry *entry, const pathbase_base *base) {
    int size = varintSize(zigzag(entry->property)) + varintSize(zigzag(entry->tag)) + varintSize(timeAgainst(entry, base))
        + varintSize(entry->counter) + varintSize(replicaAgainst(entry, base)) + 1;
    switch (entry->kind) {
    case PATHBASE_KIND_INTEGER: return size + varintSize(zigzag(entry->integer));
    case PATHBASE_KIND_REAL: return size + 8;
    case PATHBASE_KIND_TEXT:
    case PATHBASE_KIND_BLOB: return size + varintSize((uint64_t)entry->length) + entry->length;
    default: return size;
    }
}

int pathbase_entry_put(unsigned char *out, const pathbase_entry *entry, const pathbase_base *base) {
    int at = putVarint(out, zigzag(entry->property));
    at += putVarint(out + at, zigzag(entry->tag));
    at += putVarint(out + at, timeAgainst(entry, base));
    at += putVarint(out + at, entry->counter);
    at += putVarint(out + at, replicaAgainst(entry, base));
    out[at++] = (unsigned char)entry->kind;
    switch (entry->kind) {
    case PATHBASE_KIND_INTEGER:
        at += putVarint(out + at, zigzag(entry->integer));
        break;
    case PATHBASE_KIND_REAL: {
        int64_t bits;
        memcpy(&bits, &entry->real, 8);
        putFixed(out + at, bits);
        at += 8;
        break;
    }
    case PATHBASE_KIND_TEXT:
    case PATHBASE_KIND_BLOB:
        at += putVarint(out + at, (uint64_t)entry->length);
        if (entry->length > 0) memcpy(out + at, entry->bytes, (size_t)entry->length);
        at += entry->length;
        break;
    default:
        break;
    }
    return at;
}

// MARK: SQL values

static void resultValue(sqlite3_context *context, const pathbase_entry *entry) {
    switch (entry->kind) {
    case PATHBASE_KIND_INTEGER: sqlite3_result_int64(context, entry->integer); break;
    case PATHBASE_KIND_REAL: sqlite3_result_double(context, entry->real); break;
    case PATHBASE_KIND_TEXT: sqlite3_result_text(context, (const char *)entry->bytes, entry->length, SQLITE_TRANSIENT); break;
    case PATHBASE_KIND_BLOB: sqlite3_result_blob(context, entry->bytes, entry->length, SQLITE_TRANSIENT); break;
    default: sqlite3_result_null(context); break;
    }
}

/// The columns of `pathbase_entries`, and the fields the scalar functions read.
enum { columnProperty, columnType, columnValue, columnTime, columnCounter, columnReplica, columnBody };

static void resultColumn(sqlite3_context *context, const pathbase_entry *entry, int column) {
    switch (column) {
    case columnProperty: sqlite3_result_int64(context, entry->property); break;
    case columnType: sqlite3_result_int64(context, entry->tag); break;
    case columnValue: resultValue(context, entry); break;
    case columnTime: sqlite3_result_int64(context, entry->time); break;
    case columnCounter: sqlite3_result_int64(context, entry->counter); break;
    case columnReplica: sqlite3_result_int64(context, entry->replica); break;
    default: sqlite3_result_null(context); break;
    }
}

/// The entry an SQL call names with (body, property); 0 (result NULL) when there is none.
static int entryOfArguments(sqlite3_context *context, sqlite3_value **arguments, pathbase_entry *entry) {
    const unsigned char *body = sqlite3_value_blob(arguments[0]);
    int length = sqlite3_value_bytes(arguments[0]);
    int found = body ? pathbase_body_find(body, length, sqlite3_value_int64(arguments[1]), entry) : 0;
    if (found < 0) {
        sqlite3_result_error(context, "pathbase: malformed instance body", -1);
        return 0;
    }
    if (!found) sqlite3_result_null(context);
    return found;
}

/// pathbase_type, pathbase_value, pathbase_time, pathbase_counter, pathbase_replica
/// (body, property): one field of a property's entry, the column of `pathbase_entries`
/// its user data names.
static void fieldFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    pathbase_entry entry;
    if (entryOfArguments(context, arguments, &entry)) {
        resultColumn(context, &entry, (int)(intptr_t)sqlite3_user_data(context));
    }
}

int pathbase_body_is_valid(const unsigned char *body, int length) {
    int offset = 0, first = 1;
    int64_t previous = 0;
    pathbase_entry entry;
    for (;;) {
        int read = pathbase_body_next(body, length, &offset, &entry);
        if (read == 0) return 1;
        if (read < 0 || (!first && entry.property <= previous)) return 0;
        previous = entry.property;
        first = 0;
    }
}

static void isBodyFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    const unsigned char *body = sqlite3_value_blob(arguments[0]);
    int length = sqlite3_value_bytes(arguments[0]);
    int valid = sqlite3_value_type(arguments[0]) == SQLITE_BLOB && (length == 0 || (body && pathbase_body_is_valid(body, length)));
    sqlite3_result_int(context, valid);
}

// MARK: pathbase_pack(property, time, counter, replica, type, value)

/// The entries an aggregate has seen, each encoded at `offset` of `bytes` against the
/// first one's time and replica (the body's base); sorted by property when the body is made.
typedef struct {
    unsigned char *bytes;
    int used, capacity;
    struct packed { int64_t property; int offset, size; } *entries;
    int count, entryCapacity;
    pathbase_base base;
    int failed;
} packing;

/// Makes room for `needed` units of `unit` bytes; 0 (nothing changed) when that is more
/// than an `int` counts or `size_t` holds, or memory runs out.
static int grow(void **buffer, int *capacity, int64_t needed, size_t unit) {
    if (needed <= *capacity) return 1;
    if (needed > INT_MAX || (uint64_t)needed > SIZE_MAX / unit) return 0;
    int64_t next = *capacity ? *capacity : 16;
    while (next < needed) next *= 2;
    if (next > INT_MAX || (uint64_t)next > SIZE_MAX / unit) next = needed;
    void *grown = realloc(*buffer, (size_t)next * unit);
    if (!grown) return 0;
    *buffer = grown;
    *capacity = (int)next;
    return 1;
}

static void packAdd(packing *state, const pathbase_entry *entry) {
    if (state->count == 0) state->base = (pathbase_base){ entry->time, entry->replica };
    int size = pathbase_entry_size(entry, &state->base);
    // 64-bit sums: an `int` one could overflow and wrap to a size that seems to fit.
    if (size < 0
        || !grow((void **)&state->bytes, &state->capacity, (int64_t)state->used + size, 1)
        || !grow((void **)&state->entries, &state->entryCapacity, (int64_t)state->count + 1, sizeof(struct packed))) {
        state->failed = 1;
        return;
    }
    pathbase_entry_put(state->bytes + state->used, entry, &state->base);
    state->entries[state->count++] = (struct packed){ entry->property, state->used, size };
    state->used += size;
}

static int byProperty(const void *left, const void *right) {
    int64_t a = ((const struct packed *)left)->property, b = ((const struct packed *)right)->property;
    return (a > b) - (a < b);
}

/// Returns the body of the entries added (an empty body for none), and frees them.
static void packResult(sqlite3_context *context, packing *state) {
    if (state->failed) {
        sqlite3_result_error_nomem(context);
    } else if (state->count == 0) {
        sqlite3_result_zeroblob(context, 0);
    } else if ((int64_t)state->used > INT_MAX - PATHBASE_BASE_SIZE) {
        sqlite3_result_error_toobig(context);
    } else {
        unsigned char *body = sqlite3_malloc64((sqlite3_uint64)PATHBASE_BASE_SIZE + (sqlite3_uint64)state->used);
        if (!body) {
            sqlite3_result_error_nomem(context);
        } else {
            qsort(state->entries, (size_t)state->count, sizeof(struct packed), byProperty);
            pathbase_base_put(body, &state->base);
            int at = PATHBASE_BASE_SIZE;
            for (int i = 0; i < state->count; i++) {
                memcpy(body + at, state->bytes + state->entries[i].offset, (size_t)state->entries[i].size);
                at += state->entries[i].size;
            }
            sqlite3_result_blob(context, body, at, sqlite3_free);
        }
    }
    free(state->bytes);
    free(state->entries);
}

static void packStep(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    packing *state = sqlite3_aggregate_context(context, sizeof(packing));
    if (!state || state->failed) return;
    pathbase_entry entry = {0};
    entry.property = sqlite3_value_int64(arguments[0]);
    entry.time = sqlite3_value_int64(arguments[1]);
    entry.counter = (uint32_t)sqlite3_value_int64(arguments[2]);
    entry.replica = (uint32_t)sqlite3_value_int64(arguments[3]);
    entry.tag = sqlite3_value_int64(arguments[4]);
    switch (sqlite3_value_type(arguments[5])) {
    case SQLITE_INTEGER: entry.kind = PATHBASE_KIND_INTEGER; entry.integer = sqlite3_value_int64(arguments[5]); break;
    case SQLITE_FLOAT: entry.kind = PATHBASE_KIND_REAL; entry.real = sqlite3_value_double(arguments[5]); break;
    case SQLITE_TEXT:
        entry.kind = PATHBASE_KIND_TEXT;
        entry.bytes = sqlite3_value_text(arguments[5]);
        entry.length = sqlite3_value_bytes(arguments[5]);
        break;
    case SQLITE_BLOB:
        entry.kind = PATHBASE_KIND_BLOB;
        entry.bytes = sqlite3_value_blob(arguments[5]);
        entry.length = sqlite3_value_bytes(arguments[5]);
        break;
    default: entry.kind = PATHBASE_KIND_NULL; break;
    }
    packAdd(state, &entry);
}

static void packFinal(sqlite3_context *context) {
    packing *state = sqlite3_aggregate_context(context, 0);
    if (!state) { sqlite3_result_zeroblob(context, 0); return; }
    packResult(context, state);
}

// MARK: pathbase_body_upgrade(body)

/// What an old body that does not read becomes: a zero base, then an entry of property 1
/// whose kind is no kind, then the old bytes, kept for repair by hand. Like a body damaged
/// after its status, it has no status (its instance is not listed), a read of any other
/// property reports it malformed, and `pathbase_is_body` (the integrity check) says so.
static const unsigned char damagedPrefix[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0xff };

/// A format 6 or 7 body (entries without a base) as format 8 writes it; a damaged one
/// keeps its bytes behind a prefix that reads as damaged (`damagedPrefix`), so that the
/// rest of the file migrates.
static void upgradeFunction(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    const unsigned char *body = sqlite3_value_blob(arguments[0]);
    int length = sqlite3_value_bytes(arguments[0]);
    packing state = {0};
    reader r = { body, body ? body + length : body };
    while (r.at < r.end) {
        uint64_t property;
        pathbase_entry entry;
        if (!readVarint(&r, &property) || readEntryRest(&r, NULL, &entry, 1) < 0) {
            free(state.bytes);
            free(state.entries);
            if (length > INT_MAX - (int)sizeof damagedPrefix) { sqlite3_result_error_toobig(context); return; }
            unsigned char *damaged = sqlite3_malloc64((sqlite3_uint64)sizeof damagedPrefix + (sqlite3_uint64)length);
            if (!damaged) { sqlite3_result_error_nomem(context); return; }
            memcpy(damaged, damagedPrefix, sizeof damagedPrefix);
            memcpy(damaged + sizeof damagedPrefix, body, (size_t)length);
            sqlite3_result_blob(context, damaged, (int)sizeof damagedPrefix + length, sqlite3_free);
            return;
        }
        entry.property = unzigzag(property);
        packAdd(&state, &entry);
    }
    packResult(context, &state);
}

// MARK: pathbase_entries(body)

typedef struct {
    sqlite3_vtab_cursor base;
    unsigned char *body;
    int length, offset, index, atEnd;
    pathbase_entry entry;
} entriesCursor;

static int entriesConnect(sqlite3 *db, void *aux, int count, const char *const *arguments, sqlite3_vtab **table, char **error) {
    (void)aux; (void)count; (void)arguments; (void)error;
    int code = sqlite3_declare_vtab(db, "CREATE TABLE x(property, type, value, time, counter, replica, body HIDDEN)");
    if (code != SQLITE_OK) return code;
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    *table = sqlite3_malloc(sizeof(sqlite3_vtab));
    if (!*table) return SQLITE_NOMEM;
    memset(*table, 0, sizeof(sqlite3_vtab));
    return SQLITE_OK;
}

static int entriesDisconnect(sqlite3_vtab *table) {
    sqlite3_free(table);
    return SQLITE_OK;
}

static int entriesBestIndex(sqlite3_vtab *table, sqlite3_index_info *info) {
    (void)table;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *constraint = &info->aConstraint[i];
        if (constraint->iColumn == columnBody && constraint->op == SQLITE_INDEX_CONSTRAINT_EQ) {
            if (!constraint->usable) return SQLITE_CONSTRAINT;
            info->aConstraintUsage[i].argvIndex = 1;
            info->aConstraintUsage[i].omit = 1;
            info->estimatedCost = 10;
            info->estimatedRows = 8;
            // Entries come in property order.
            if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == columnProperty && !info->aOrderBy[0].desc) {
                info->orderByConsumed = 1;
            }
            return SQLITE_OK;
        }
    }
    return SQLITE_CONSTRAINT;
}

static int entriesOpen(sqlite3_vtab *table, sqlite3_vtab_cursor **cursor) {
    (void)table;
    entriesCursor *opened = sqlite3_malloc(sizeof(entriesCursor));
    if (!opened) return SQLITE_NOMEM;
    memset(opened, 0, sizeof(entriesCursor));
    *cursor = &opened->base;
    return SQLITE_OK;
}

static int entriesClose(sqlite3_vtab_cursor *cursor) {
    entriesCursor *entries = (entriesCursor *)cursor;
    sqlite3_free(entries->body);
    sqlite3_free(entries);
    return SQLITE_OK;
}

static int entriesNext(sqlite3_vtab_cursor *cursor) {
    entriesCursor *entries = (entriesCursor *)cursor;
    int read = pathbase_body_next(entries->body, entries->length, &entries->offset, &entries->entry);
    if (read < 0) {
        sqlite3_free(cursor->pVtab->zErrMsg);
        cursor->pVtab->zErrMsg = sqlite3_mprintf("pathbase: malformed instance body");
        // SQLITE_ERROR fails the statement only. SQLITE_CORRUPT would also make SQLite
        // refuse every later write of the transaction (a write transaction reads
        // `current_values` when it prunes), so one body damaged on disk would fail batches
        // that never touch it. `pathbase check` finds such a body with `pathbase_is_body`.
        return SQLITE_ERROR;
    }
    entries->atEnd = read == 0;
    entries->index++;
    return SQLITE_OK;
}

static int entriesFilter(sqlite3_vtab_cursor *cursor, int plan, const char *planName, int count, sqlite3_value **arguments) {
    (void)plan; (void)planName;
    entriesCursor *entries = (entriesCursor *)cursor;
    sqlite3_free(entries->body);
    entries->body = 0;
    entries->length = 0;
    entries->offset = 0;
    entries->index = -1;
    if (count >= 1 && sqlite3_value_type(arguments[0]) == SQLITE_BLOB) {
        int length = sqlite3_value_bytes(arguments[0]);
        // Copied: the argument lives only as long as this call.
        entries->body = sqlite3_malloc(length > 0 ? length : 1);
        if (!entries->body) return SQLITE_NOMEM;
        if (length > 0) memcpy(entries->body, sqlite3_value_blob(arguments[0]), (size_t)length);
        entries->length = length;
    }
    return entriesNext(cursor);
}

static int entriesEof(sqlite3_vtab_cursor *cursor) {
    return ((entriesCursor *)cursor)->atEnd;
}

static int entriesColumn(sqlite3_vtab_cursor *cursor, sqlite3_context *context, int column) {
    resultColumn(context, &((entriesCursor *)cursor)->entry, column);
    return SQLITE_OK;
}

static int entriesRowid(sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid) {
    *rowid = ((entriesCursor *)cursor)->index;
    return SQLITE_OK;
}

static sqlite3_module entriesModule = {
    .iVersion = 0,
    .xConnect = entriesConnect,
    .xBestIndex = entriesBestIndex,
    .xDisconnect = entriesDisconnect,
    .xOpen = entriesOpen,
    .xClose = entriesClose,
    .xFilter = entriesFilter,
    .xNext = entriesNext,
    .xEof = entriesEof,
    .xColumn = entriesColumn,
    .xRowid = entriesRowid,
};

// MARK: Registration

int pathbase_register_bodies(void *connection) {
    sqlite3 *db = connection;
    const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    struct { const char *name; int column; } fields[] = {
        { "pathbase_type", columnType },
        { "pathbase_value", columnValue },
        { "pathbase_time", columnTime },
        { "pathbase_counter", columnCounter },
        { "pathbase_replica", columnReplica },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        void *column = (void *)(intptr_t)fields[i].column;
        int code = sqlite3_create_function_v2(db, fields[i].name, 2, flags, column, fieldFunction, 0, 0, 0);
        if (code != SQLITE_OK) return code;
    }
    int code = sqlite3_create_function_v2(db, "pathbase_is_body", 1, flags, 0, isBodyFunction, 0, 0, 0);
    if (code != SQLITE_OK) return code;
    code = sqlite3_create_function_v2(db, "pathbase_pack", 6, flags, 0, 0, packStep, packFinal, 0);
    if (code != SQLITE_OK) return code;
    code = sqlite3_create_function_v2(db, "pathbase_body_upgrade", 1, flags, 0, upgradeFunction, 0, 0, 0);
    if (code != SQLITE_OK) return code;
    return sqlite3_create_module_v2(db, "pathbase_entries", &entriesModule, 0, 0);
}
