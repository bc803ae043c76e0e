"""File bytes per object written once with history, in the layouts a future storage format
could take, against the baseline of `sqlite.bytes-per-record` (a fixed table plus a history
table with one row per version). Python's sqlite3 only builds the files: bytes, not time.

    python3 Benchmarks/Layouts/bytes_per_object.py
"""
import os
import shutil
import sqlite3
import struct
import tempfile

OBJECTS = 10_000
NAMES = ["Alice Smith", "Bob Jones", "Carol White", "Dan Brown", "Eve Black", "Frank Green"]
TIME = 1_764_000_000_000
REPLICA = 123_456_789
directory = tempfile.mkdtemp(prefix="pathbase-layouts-")


def fresh(name):
    db = sqlite3.connect(os.path.join(directory, name + ".sqlite"), isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    return db


def size(db):
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]


def row(i):
    return (i, NAMES[i % 6], float(i), i % 2 == 0, NAMES[(i + 1) % 6])


def tagged(i):
    """(type tag, value) of the status and the five properties, as Pathbase stores them."""
    count, name, score, flag, note = row(i)
    return [(20, 1), (3, count), (9, name), (4, score), (1, int(flag)), (9, note)]


def report(label, db, baseline):
    total = size(db)
    print(f"{label:90} {total / OBJECTS:7.0f} bytes/object  ratio {total / baseline:.2f}")
    return total


RECORDS = """CREATE TABLE records (model INTEGER NOT NULL, property INTEGER NOT NULL, instance INTEGER NOT NULL,
    time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL, type INTEGER NOT NULL, value,
    PRIMARY KEY (model, instance, property, time, counter, replica)) WITHOUT ROWID;
CREATE INDEX records_by_time ON records(time, counter, replica, model, instance, property);"""
RECORD_TIMES = """CREATE TABLE record_times (time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
    model INTEGER NOT NULL, instance INTEGER NOT NULL, property INTEGER NOT NULL,
    PRIMARY KEY (time, counter, replica, model, instance, property)) WITHOUT ROWID;"""

db = fresh("baseline")
db.executescript("""CREATE TABLE t (id INTEGER PRIMARY KEY, count INTEGER NOT NULL, name TEXT NOT NULL,
    score DOUBLE NOT NULL, flag BOOLEAN NOT NULL, note TEXT NOT NULL);
CREATE TABLE h (id INTEGER NOT NULL, time INTEGER NOT NULL, count INTEGER NOT NULL, name TEXT NOT NULL,
    score DOUBLE NOT NULL, flag BOOLEAN NOT NULL, note TEXT NOT NULL, PRIMARY KEY (id, time)) WITHOUT ROWID;
BEGIN""")
for i in range(OBJECTS):
    db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", (i,) + row(i))
    db.execute("INSERT INTO h VALUES (?, ?, ?, ?, ?, ?, ?)", (i, TIME + i) + row(i))
db.execute("COMMIT")
baseline = size(db)
print(f"{'baseline: fixed table + history table':90} {baseline / OBJECTS:7.0f} bytes/object")

db = fresh("format4")
db.executescript("""CREATE TABLE current_values (model INTEGER NOT NULL, property INTEGER NOT NULL,
    instance INTEGER NOT NULL, time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
    type INTEGER NOT NULL, value, PRIMARY KEY (model, instance, property)) WITHOUT ROWID;
CREATE INDEX current_statuses ON current_values(model, instance, type, value, time, counter, replica)
    WHERE property = 0;""" + RECORDS + "BEGIN")
for i in range(OBJECTS):
    for property, (tag, value) in enumerate(tagged(i)):
        values = (2, property, i, TIME + i, property, REPLICA, tag, value)
        db.execute("INSERT INTO current_values VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
        db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
db.execute("COMMIT")
report("format 4 (one row per value, records by path and by time)", db, baseline)


db = fresh("format5")
db.executescript("""CREATE TABLE current_values (model INTEGER NOT NULL, property INTEGER NOT NULL,
    instance INTEGER NOT NULL, time INTEGER NOT NULL, counter INTEGER NOT NULL, replica INTEGER NOT NULL,
    type INTEGER NOT NULL, value, PRIMARY KEY (model, instance, property)) WITHOUT ROWID;
CREATE INDEX current_statuses ON current_values(model, instance, type, value, time, counter, replica)
    WHERE property = 0;""" + RECORD_TIMES + "BEGIN")
for i in range(OBJECTS):
    for property, (tag, value) in enumerate(tagged(i)):
        db.execute("INSERT INTO current_values VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (2, property, i, TIME + i, property, REPLICA, tag, value))
        db.execute("INSERT INTO record_times VALUES (?, ?, ?, ?, ?, ?)", (TIME + i, property, REPLICA, 2, i, property))
db.execute("COMMIT")
report("format 5 (one row per value; every record's time)", db, baseline)


def packed_value(tag, value):
    """A value as a packed body holds it: a length-prefixed integer, double or text."""
    if isinstance(value, float):
        return struct.pack("<d", value)
    if isinstance(value, str):
        data = value.encode()
        return struct.pack("B", len(data)) + data
    return struct.pack("B", 8) + struct.pack("<q", value).rstrip(b"\0")


def packed_body(i):
    """Status and values of one instance, each with its property, tag and a compact stamp
    (7 bytes of microseconds, a one-byte counter, a one-byte replica index)."""
    stamp = struct.pack("<q", TIME + i)[:7]
    return b"".join(struct.pack("BB", p, tag) + stamp + struct.pack("BB", p, 1) + packed_value(tag, value)
                    for p, (tag, value) in enumerate(tagged(i)))


for times in ["record", "instance"]:
    db = fresh(f"packed-{times}")
    db.executescript("""CREATE TABLE instances (model INTEGER NOT NULL, instance INTEGER NOT NULL, body BLOB NOT NULL,
        PRIMARY KEY (model, instance)) WITHOUT ROWID;""" + RECORD_TIMES + "BEGIN")
    for i in range(OBJECTS):
        db.execute("INSERT INTO instances VALUES (2, ?, ?)", (i, packed_body(i)))
        for property in range(6 if times == "record" else 1):
            db.execute("INSERT INTO record_times VALUES (?, ?, ?, ?, ?, ?)", (TIME + i, property, REPLICA, 2, i, property))
    db.execute("COMMIT")
    label = "every record's time" if times == "record" else "one time per commit and instance"
    report(f"a packed row per instance (a compact stamp per value); {label}", db, baseline)


def per_instance_table(db, stamps):
    """One row per instance: values, their tags, and a timestamp per value or per row."""
    columns = ", ".join(f"t{p}, v{p}" for p in range(6))
    columns += ", " + (", ".join(f"s{p}" for p in range(6)) if stamps == "value" else "s")
    db.execute(f"CREATE TABLE m2 (instance INTEGER PRIMARY KEY, {columns})")


def insert_per_instance(db, i, stamps):
    values = [item for pair in tagged(i) for item in pair]
    stamp = struct.pack(">qII", TIME + i, 0, REPLICA)
    values += [stamp] * (6 if stamps == "value" else 1)
    db.execute(f"INSERT INTO m2 VALUES ({', '.join('?' * (len(values) + 1))})", [i] + values)


for stamps in ["value", "row"]:
    db = fresh(f"rows-{stamps}-records")
    per_instance_table(db, stamps)
    db.executescript(RECORDS + "BEGIN")
    for i in range(OBJECTS):
        insert_per_instance(db, i, stamps)
        for property, (tag, value) in enumerate(tagged(i)):
            db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (2, property, i, TIME + i, property, REPLICA, tag, value))
    db.execute("COMMIT")
    report(f"row per instance, a stamp per {stamps}; records by path and time", db, baseline)
    for by_time in [False, True]:
        db = fresh(f"rows-{stamps}-changes-{by_time}")
        per_instance_table(db, stamps)
        db.executescript("""CREATE TABLE changes (id INTEGER PRIMARY KEY, model INTEGER NOT NULL,
            instance INTEGER NOT NULL, time INTEGER NOT NULL, counter INTEGER NOT NULL,
            replica INTEGER NOT NULL, body BLOB NOT NULL);
        CREATE INDEX changes_by_instance ON changes(model, instance, time, counter, replica);""")
        if by_time:
            db.execute("CREATE INDEX changes_by_time ON changes(time, counter, replica)")
        db.execute("BEGIN")
        for i in range(OBJECTS):
            insert_per_instance(db, i, stamps)
            body = b"".join(struct.pack(">BB", p, tag) + str(value).encode() for p, (tag, value) in enumerate(tagged(i)))
            db.execute("INSERT INTO changes (model, instance, time, counter, replica, body) VALUES (2, ?, ?, 0, ?, ?)", (i, TIME + i, REPLICA, body))
        db.execute("COMMIT")
        indexes = "by instance and by time" if by_time else "by instance"
        report(f"row per instance, a stamp per {stamps}; a change row per commit, {indexes}", db, baseline)

shutil.rmtree(directory)
