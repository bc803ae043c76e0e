import CPathbaseBodies
import Foundation
import GRDB
import Pathbase
@testable import PathbaseSQLite

/// A GRDB queue on a file, for tests that read or edit a Pathbase file by hand: it can read
/// instance bodies (the `current_values` view, `pathbase_pack`, value indexes), as every
/// connection of `SQLiteDatabase` can.
func rawQueue(path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        _ = pathbase_register_bodies(UnsafeMutableRawPointer(db.sqliteConnection))
    }
    return try DatabaseQueue(path: path, configuration: configuration)
}

/// A temporary directory for one test, removed when the value is released.
final class TemporaryDirectory {

    let path: String

    init() {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("pathbase-sqlite-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path for a file in the directory.
    func file(_ name: String = "test.sqlite") -> String {
        path + "/" + name
    }
}

/// Collects the errors an ``SQLiteDatabase`` reports.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SQLiteDatabaseError] = []

    var errors: [SQLiteDatabaseError] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var handler: @Sendable (SQLiteDatabaseError) -> Void {
        { [self] error in
            lock.lock()
            stored.append(error)
            lock.unlock()
        }
    }
}

struct TestError: Error {}

struct Address: Codable, Equatable, Sendable {
    var street: String
    var number: Int
}

enum Priority: String, Codable, Sendable {
    case low, high
}

// Model ids 1–19 in this target.

@Model(id: 1)
final class Person {
    @Property(id: 1) var name: String
    @Property(id: 2) var age: Int
    @Property(id: 3) var address: Address = Address(street: "", number: 0)
    @Property(id: 4) var nickname: String?
    @Property(id: 5) var isAdmin: Bool
    @Property(id: 6) var avatar: Data
    @Property(id: 7) var score: Double
    @Reference(id: 8) var partner: Person?
    @ReferenceList(id: 9) var friends: [Person]
    @Property(id: 10) var tags: Set<String>
    @Property(id: 11) var priority: Priority = .low
    @Property(id: 12) var birthday: Date?
}

@Model(id: 2)
final class Item {
    @Property(id: 1) var title: String
    @Property(id: 2) var count: Int
}

/// Rewrites a file of the current format as format 7 wrote it: bodies without a base (each
/// entry's time in 8 fixed bytes, its replica a plain varint) and runs with every record
/// whole. Format 6 stored its bodies the same way. The value indexes go, since their
/// functions can't read such bodies; returns their SQL (see ``restoreIndexes(_:of:)``).
@discardableResult
func downgradeToFormatSeven(_ db: GRDB.Database) throws -> [String] {
    let indexes = try Schema.dropInstanceValueIndexes(db)
    func varint(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
    func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    func fixed(_ value: Int64, into bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> UInt64(shift))) }
    }
    for row in try Row.fetchAll(db, sql: "SELECT model, instance, body FROM instance_values") {
        let body: [UInt8] = [UInt8](row[2] as Data)
        var legacy: [UInt8] = []
        var offset: Int32 = 0
        var entry = pathbase_entry()
        while body.withUnsafeBufferPointer({ pathbase_body_next($0.baseAddress, Int32($0.count), &offset, &entry) }) == 1 {
            varint(zigzag(entry.property), into: &legacy)
            varint(zigzag(entry.tag), into: &legacy)
            fixed(entry.time, into: &legacy)
            varint(UInt64(entry.counter), into: &legacy)
            varint(UInt64(entry.replica), into: &legacy)
            legacy.append(UInt8(entry.kind))
            switch entry.kind {
            case PATHBASE_KIND_INTEGER: varint(zigzag(entry.integer), into: &legacy)
            case PATHBASE_KIND_REAL: fixed(Int64(bitPattern: entry.real.bitPattern), into: &legacy)
            case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB:
                varint(UInt64(entry.length), into: &legacy)
                legacy += UnsafeBufferPointer(start: entry.bytes, count: Int(entry.length))
            default: break
            }
        }
        try db.execute(sql: "UPDATE instance_values SET body = ? WHERE model = ? AND instance = ?", arguments: [Data(legacy), row[0] as Int64, row[1] as Int64])
    }
    for row in try Row.fetchAll(db, sql: "SELECT rowid, time, replica, records FROM record_runs") {
        let records = (row[3] as Data).withUnsafeBytes { RecordRun.decode($0, firstTime: row[1], firstReplica: UInt32(truncatingIfNeeded: row[2] as Int64)) } ?? []
        var legacy: [UInt8] = []
        for record in records {
            varint(UInt64(bitPattern: Int64(record.path.model)), into: &legacy)
            varint(UInt64(bitPattern: Int64(record.path.instance)), into: &legacy)
            varint(UInt64(bitPattern: Int64(record.path.property)), into: &legacy)
            varint(UInt64(bitPattern: record.timestamp.time &- (row[1] as Int64)), into: &legacy)
            varint(UInt64(record.timestamp.counter), into: &legacy)
            varint(UInt64(record.timestamp.replica), into: &legacy)
        }
        try db.execute(sql: "UPDATE record_runs SET records = ? WHERE rowid = ?", arguments: [Data(legacy), row[0] as Int64])
    }
    // Format 7's table had no end time.
    try db.execute(
        sql: """
            DROP INDEX record_runs_start;
            ALTER TABLE record_runs DROP COLUMN end_time;
            CREATE INDEX record_runs_start ON record_runs(time, counter, replica);
            PRAGMA user_version = 7;
            """)
    return indexes
}

/// Makes value indexes again on a file whose bodies the registered functions can't read
/// (a format 7 file): through a connection where the functions they call are stand-ins that
/// read nothing, so every entry holds NULL. A migration that keeps such an index unchanged
/// answers queries wrongly; one that reads through it before rewriting it fails.
func restoreIndexes(_ indexes: [String], of path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        for name in ["pathbase_type", "pathbase_value"] {
            db.add(function: DatabaseFunction(name, argumentCount: 2, pure: true) { _ in nil })
        }
        for index in indexes { try db.execute(sql: index) }
    }
    try queue.close()
}

/// A file of the current format with two people, Ada (1) and Bob (2): what the damaged-body
/// tests damage one of.
func createAdaAndBob(at path: String) throws {
    let database = try SQLiteDatabase(path: path)
    Person.create(in: database, id: 1, name: "Ada", age: 36)
    Person.create(in: database, id: 2, name: "Bob", age: 40)
    database.close()
}
