// What SQLite alone costs to read what the listing and indexed-query lines read, in four
// layouts: a fixed table (GRDB's row), format 4 and 5 (`current_values`, one row per value),
// one row per instance (values, then their type tags, then one timestamp), and one row per
// instance whose values, tags and per-value timestamps are packed in one blob (with a table
// of its own for the value index). No Swift: the floor each layout puts under those lines.
//
//   cc -O2 Benchmarks/Layouts/read_floors.c -lsqlite3 -o /tmp/read_floors && /tmp/read_floors
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

enum { objects = 100000, categories = 10000, queries = 2000 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void run(sqlite3 *db, const char *sql) {
    char *error = 0;
    if (sqlite3_exec(db, sql, 0, 0, &error)) { fprintf(stderr, "%s: %s\n", sql, error); exit(1); }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement = 0;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, 0)) { fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db)); exit(1); }
    return statement;
}

/// Reads every column of every row a statement returns; the count of rows.
static long long drain(sqlite3_stmt *statement, long long *sum) {
    long long rows = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        rows++;
        for (int column = 0; column < sqlite3_column_count(statement); column++) {
            switch (sqlite3_column_type(statement, column)) {
            case SQLITE_TEXT: *sum += sqlite3_column_bytes(statement, column) + sqlite3_column_text(statement, column)[0]; break;
            case SQLITE_FLOAT: *sum += (long long)sqlite3_column_double(statement, column); break;
            default: *sum += sqlite3_column_int64(statement, column);
            }
        }
    }
    sqlite3_reset(statement);
    return rows;
}

/// One packed field: property, type tag, timestamp (8 bytes of time, 2 of counter, 1 of
/// replica index), then the value (length-prefixed bytes).
static int packField(unsigned char *out, int property, int tag, long long time, const void *value, int length) {
    int at = 0;
    out[at++] = (unsigned char)property; out[at++] = (unsigned char)tag;
    for (int i = 0; i < 8; i++) out[at++] = (unsigned char)(time >> (8 * i));
    out[at++] = 0; out[at++] = 0; out[at++] = 1;
    out[at++] = (unsigned char)length;
    for (int i = 0; i < length; i++) out[at++] = ((const unsigned char *)value)[i];
    return at;
}

/// The body of one instance: its status and three values, each with its timestamp.
static int pack(unsigned char *out, int id) {
    long long time = 1764000000000LL + id;
    char name[32]; int nameLength = snprintf(name, sizeof name, "user %d", id);
    long long status = 1, category = id % categories; double score = id / 3.0;
    int at = packField(out, 0, 20, time, &status, 1);
    at += packField(out + at, 1, 9, time, name, nameLength);
    at += packField(out + at, 2, 3, time, &category, 2);
    at += packField(out + at, 3, 4, time, &score, 8);
    return at;
}

/// Walks a packed body as a reader would (each field's tag, time and value); a checksum.
static long long unpack(const unsigned char *body, int length) {
    long long sum = 0;
    for (int at = 0; at + 14 <= length; at += 14 + body[at + 13]) {
        long long time = 0;
        for (int i = 0; i < 8; i++) time |= (long long)body[at + 2 + i] << (8 * i);
        sum += body[at] + body[at + 1] + time + body[at + 14];
    }
    return sum;
}

/// `packed_value(body, property)`: the value of one property in a packed body (integers and
/// doubles; texts as their bytes), or NULL. Deterministic, so an index may use it.
static void packedValue(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    const unsigned char *body = sqlite3_value_blob(arguments[0]);
    int length = sqlite3_value_bytes(arguments[0]);
    int property = sqlite3_value_int(arguments[1]);
    for (int at = 0; at + 14 <= length; at += 14 + body[at + 13]) {
        if (body[at] != property) continue;
        int size = body[at + 13];
        const unsigned char *value = body + at + 14;
        if (body[at + 1] == 9) { sqlite3_result_text(context, (const char *)value, size, SQLITE_TRANSIENT); return; }
        if (body[at + 1] == 4) { double d; memcpy(&d, value, 8); sqlite3_result_double(context, d); return; }
        long long n = 0;
        for (int i = 0; i < size; i++) n |= (long long)value[i] << (8 * i);
        sqlite3_result_int64(context, n);
        return;
    }
    sqlite3_result_null(context);
}

/// Reads every packed row a statement returns (instance, body); the count of rows.
static long long drainPacked(sqlite3_stmt *statement, long long *sum) {
    long long rows = 0;
    while (sqlite3_step(statement) == SQLITE_ROW) {
        rows++;
        *sum += sqlite3_column_int64(statement, 0);
        *sum += unpack(sqlite3_column_blob(statement, 1), sqlite3_column_bytes(statement, 1));
    }
    sqlite3_reset(statement);
    return rows;
}

int main(void) {
    const char *path = "/tmp/pathbase-read-floors.sqlite";
    unlink(path);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_create_function_v2(db, "packed_value", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, packedValue, 0, 0, 0);
    run(db, "PRAGMA journal_mode = WAL; PRAGMA mmap_size = 1000000000; PRAGMA cache_size = -65536;"
            "CREATE TABLE fixed (id INTEGER PRIMARY KEY, name TEXT, category INTEGER, score REAL);"
            "CREATE INDEX fixed_category ON fixed(category);"
            "CREATE TABLE current_values (model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,"
            "  time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL, type INTEGER NOT NULL, value,"
            "  PRIMARY KEY (model, instance, property)) WITHOUT ROWID;"
            "CREATE INDEX value_index_2_2 ON current_values(type, value) WHERE model = 2 AND property = 2;"
            "CREATE TABLE per_instance (instance INTEGER PRIMARY KEY, status, name, category, score,"
            "  status_type, name_type, category_type, score_type, stamp BLOB);"
            "CREATE INDEX per_instance_category ON per_instance(category_type, category);"
            "CREATE TABLE packed (model INTEGER NOT NULL, instance INTEGER NOT NULL, body BLOB NOT NULL,"
            "  PRIMARY KEY (model, instance)) WITHOUT ROWID;"
            "CREATE TABLE packed_index (model INTEGER NOT NULL, property INTEGER NOT NULL, type INTEGER NOT NULL,"
            "  value, instance INTEGER NOT NULL, PRIMARY KEY (model, property, type, value, instance)) WITHOUT ROWID;"
            "BEGIN");
    sqlite3_stmt *fixed = prepare(db, "INSERT INTO fixed VALUES (?1, 'user ' || ?1, ?1 % 10000, ?1 / 3.0)");
    sqlite3_stmt *value = prepare(db, "INSERT INTO current_values VALUES (2, ?2, ?1, 1764000000000 + ?1, 0, 123456789, ?3, ?4)");
    sqlite3_stmt *row = prepare(db, "INSERT INTO per_instance VALUES (?1, 1, 'user ' || ?1, ?1 % 10000, ?1 / 3.0, 20, 9, 3, 4, randomblob(16))");
    sqlite3_stmt *packedRow = prepare(db, "INSERT INTO packed VALUES (2, ?1, ?2)");
    sqlite3_stmt *packedEntry = prepare(db, "INSERT INTO packed_index VALUES (2, 2, 3, ?1 % 10000, ?1)");
    for (int id = 0; id < objects; id++) {
        sqlite3_bind_int(fixed, 1, id); sqlite3_step(fixed); sqlite3_reset(fixed);
        sqlite3_bind_int(row, 1, id); sqlite3_step(row); sqlite3_reset(row);
        unsigned char body[128];
        int length = pack(body, id);
        sqlite3_bind_int(packedRow, 1, id); sqlite3_bind_blob(packedRow, 2, body, length, SQLITE_TRANSIENT);
        sqlite3_step(packedRow); sqlite3_reset(packedRow);
        sqlite3_bind_int(packedEntry, 1, id); sqlite3_step(packedEntry); sqlite3_reset(packedEntry);
        for (int property = 0; property < 4; property++) {
            sqlite3_bind_int(value, 1, id);
            sqlite3_bind_int(value, 2, property);
            sqlite3_bind_int(value, 3, (int[]){20, 9, 3, 4}[property]);
            switch (property) {
            case 0: sqlite3_bind_int(value, 4, 1); break;
            case 1: { char name[32]; snprintf(name, sizeof name, "user %d", id); sqlite3_bind_text(value, 4, name, -1, SQLITE_TRANSIENT); break; }
            case 2: sqlite3_bind_int(value, 4, id % categories); break;
            default: sqlite3_bind_double(value, 4, id / 3.0);
            }
            sqlite3_step(value); sqlite3_reset(value);
        }
    }
    run(db, "CREATE INDEX packed_category ON packed(packed_value(body, 2)) WHERE model = 2;"
            "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)");

    // Listing: every row of the first 10^4 instances.
    sqlite3_stmt *listFixed = prepare(db, "SELECT id, name, category, score FROM fixed WHERE id < 10000");
    sqlite3_stmt *listValues = prepare(db, "SELECT instance, type, value, property FROM current_values WHERE model = 2 AND instance < 10000 ORDER BY instance, property");
    sqlite3_stmt *listRows = prepare(db, "SELECT instance, status, name, category, score, status_type, name_type, category_type, score_type FROM per_instance WHERE instance < 10000");
    // Indexed query: the instances of one category, then their values.
    sqlite3_stmt *queryFixed = prepare(db, "SELECT id, name, category, score FROM fixed WHERE category = ?1 ORDER BY id");
    sqlite3_stmt *matches = prepare(db, "SELECT instance FROM current_values WHERE model = 2 AND property = 2 AND type = 3 AND value = ?1");
    sqlite3_stmt *instanceValues = prepare(db, "SELECT instance, type, value, property FROM current_values WHERE model = 2 AND instance = ?1");
    sqlite3_stmt *queryRows = prepare(db, "SELECT instance, status, name, category, score, status_type, name_type, category_type, score_type FROM per_instance WHERE category_type = 3 AND category = ?1 ORDER BY instance");
    sqlite3_stmt *listPacked = prepare(db, "SELECT instance, body FROM packed WHERE model = 2 AND instance < 10000");
    sqlite3_stmt *queryExpression = prepare(db, "SELECT instance, body FROM packed WHERE model = 2 AND packed_value(body, 2) = ?1");
    sqlite3_stmt *plan = prepare(db, "EXPLAIN QUERY PLAN SELECT instance, body FROM packed WHERE model = 2 AND packed_value(body, 2) = ?1");
    while (sqlite3_step(plan) == SQLITE_ROW) printf("plan: %s\n", sqlite3_column_text(plan, 3));
    sqlite3_finalize(plan);
    sqlite3_stmt *filterExpression = prepare(db, "SELECT instance, body FROM packed WHERE model = 2 AND instance < 10000 AND packed_value(body, 3) < 100.0");
    sqlite3_stmt *queryPacked = prepare(db, "SELECT p.instance, p.body FROM packed_index i JOIN packed p ON p.model = 2 AND p.instance = i.instance"
                                            " WHERE i.model = 2 AND i.property = 2 AND i.type = 3 AND i.value = ?1");

    long long sum = 0;
    for (int round = 0; round < 3; round++) {
        run(db, "BEGIN");
        double t0 = now(); drain(listFixed, &sum);
        double t1 = now(); drain(listValues, &sum);
        double t2 = now(); drain(listRows, &sum);
        double t3 = now();
        for (int q = 0; q < queries; q++) { sqlite3_bind_int(queryFixed, 1, q * 37 % categories); drain(queryFixed, &sum); }
        double t4 = now();
        for (int q = 0; q < queries; q++) {
            sqlite3_bind_int(matches, 1, q * 37 % categories);
            while (sqlite3_step(matches) == SQLITE_ROW) {
                sqlite3_bind_int64(instanceValues, 1, sqlite3_column_int64(matches, 0));
                drain(instanceValues, &sum);
            }
            sqlite3_reset(matches);
        }
        double t5 = now();
        for (int q = 0; q < queries; q++) { sqlite3_bind_int(queryRows, 1, q * 37 % categories); drain(queryRows, &sum); }
        double t6 = now(); drainPacked(listPacked, &sum);
        double t7 = now();
        for (int q = 0; q < queries; q++) { sqlite3_bind_int(queryPacked, 1, q * 37 % categories); drainPacked(queryPacked, &sum); }
        double t8 = now();
        for (int q = 0; q < queries; q++) { sqlite3_bind_int(queryExpression, 1, q * 37 % categories); drainPacked(queryExpression, &sum); }
        double t9 = now(); drainPacked(filterExpression, &sum);
        double t10 = now();
        run(db, "COMMIT");
        printf("packed, by an expression index: indexed query %.0f ns; an unindexed filter in SQL %.0f ns per instance\n",
               (t9 - t8) / queries, (t10 - t9) / 1e4);
        printf("listing per instance: fixed %.0f ns, format 4/5 %.0f ns, per instance %.0f ns, packed %.0f ns | "
               "indexed query (10 matches): fixed %.0f ns, format 4/5 %.0f ns, per instance %.0f ns, packed %.0f ns\n",
               (t1 - t0) / 1e4, (t2 - t1) / 1e4, (t3 - t2) / 1e4, (t7 - t6) / 1e4,
               (t4 - t3) / queries, (t5 - t4) / queries, (t6 - t5) / queries, (t8 - t7) / queries);
    }
    sqlite3_close(db);
    unlink(path);
    return sum == 42; // uses the sum
}
