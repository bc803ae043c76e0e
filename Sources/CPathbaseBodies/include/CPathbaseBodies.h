#ifndef CPATHBASEBODIES_H
#define CPATHBASEBODIES_H

#include <stdint.h>

/// One entry of an instance body: a property's current record (see bodies.c).
typedef struct {
    int64_t property;
    int64_t tag;
    int64_t time;
    uint32_t counter;
    uint32_t replica;
    /// PATHBASE_KIND_*: how SQLite holds the value.
    int kind;
    int64_t integer;
    double real;
    /// Text (UTF-8) or blob bytes, pointing into the body; `length` bytes.
    const unsigned char *bytes;
    int length;
} pathbase_entry;

/// The base a body's entries write their timestamps against (see bodies.c).
typedef struct {
    int64_t time;
    uint32_t replica;
} pathbase_base;

/// The bytes a base takes at the start of a non-empty body.
#define PATHBASE_BASE_SIZE 12

#define PATHBASE_KIND_NULL 0
#define PATHBASE_KIND_INTEGER 1
#define PATHBASE_KIND_REAL 2
#define PATHBASE_KIND_TEXT 3
#define PATHBASE_KIND_BLOB 4

/// Reads the entry at `*offset` and moves `*offset` past it: 1 when read, 0 at the end of
/// the body, -1 when the bytes are not a well-formed entry.
int pathbase_body_next(const unsigned char *body, int length, int *offset, pathbase_entry *entry);

/// Finds the entry of `property`: 1 when found, 0 when the body has none, -1 when the body
/// is malformed.
int pathbase_body_find(const unsigned char *body, int length, int64_t property, pathbase_entry *entry);

/// Decodes every entry of a body, in order, into `entries` (room for `capacity`): the
/// number of entries, which is more than `capacity` when they did not all fit (call again
/// with room for that many), or -1 when the body is malformed. One call per body: reading
/// entry by entry read the base and crossed into C once per entry.
int pathbase_body_decode(const unsigned char *body, int length, pathbase_entry *entries, int capacity);

/// ``pathbase_body_decode`` without the entries' timestamps (time, counter and replica are
/// left as they were): for reads of values only.
int pathbase_body_decode_values(const unsigned char *body, int length, pathbase_entry *entries, int capacity);

/// Whether the bytes are a well-formed body: entries that read, in ascending property order.
int pathbase_body_is_valid(const unsigned char *body, int length);

/// Reads a body's base: 1 when read, 0 for an empty body (no base), -1 when the body is
/// too short to hold one.
int pathbase_body_base(const unsigned char *body, int length, pathbase_base *base);

/// Writes `base` at `out` (room for `PATHBASE_BASE_SIZE` bytes).
void pathbase_base_put(unsigned char *out, const pathbase_base *base);

/// The bytes `entry` takes in a body of base `base`.
int pathbase_entry_size(const pathbase_entry *entry, const pathbase_base *base);

/// Writes `entry` at `out` (room for `pathbase_entry_size(entry, base)` bytes) for a body
/// of base `base`; the bytes written.
int pathbase_entry_put(unsigned char *out, const pathbase_entry *entry, const pathbase_base *base);

/// Registers on a connection (a `sqlite3 *`) what SQL needs to read bodies: the functions
/// `pathbase_type`, `pathbase_value`, `pathbase_time`, `pathbase_counter`,
/// `pathbase_replica` (body, property), `pathbase_is_body(body)`, the aggregate
/// `pathbase_pack(property, time, counter, replica, type, value)`,
/// `pathbase_body_upgrade(body)` (a format 6 or 7 body as format 8 writes it) and the
/// table-valued function `pathbase_entries(body)`. Returns an SQLite result code.
int pathbase_register_bodies(void *connection);

#endif
