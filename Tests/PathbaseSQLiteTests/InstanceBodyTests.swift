import CPathbaseBodies
import Foundation
import GRDB
import GRDBSQLite
import Pathbase
import PathbaseSQLite
import PathbaseTestSupport
import Testing

/// Storage format 6 keeps an instance's current records packed in one body (format 8 writes their timestamps against a base); these check the
/// bytes (through the C functions every connection registers) and what a damaged body does.
@Suite("SQLiteDatabase: instance bodies (storage formats 6 and 8)")
struct InstanceBodyTests {

    /// One entry as a test writes it: property, tag, timestamp and a value of one kind.
    private struct Written: Equatable {
        var property: Int64
        var tag: Int64
        var time: Int64
        var counter: UInt32
        var replica: UInt32
        var kind: Int32
        var integer: Int64 = 0
        var real: Double = 0
        var bytes: [UInt8] = []
    }

    /// A body of base `base`, no entries yet.
    private static func emptyBody(base: pathbase_base) -> [UInt8] {
        var base = base
        var body = [UInt8](repeating: 0, count: Int(PATHBASE_BASE_SIZE))
        body.withUnsafeMutableBufferPointer { pathbase_base_put($0.baseAddress!, &base) }
        return body
    }

    private static func put(_ written: Written, base: pathbase_base, into body: inout [UInt8]) {
        var base = base
        var entry = pathbase_entry()
        entry.property = written.property
        entry.tag = written.tag
        entry.time = written.time
        entry.counter = written.counter
        entry.replica = written.replica
        entry.kind = written.kind
        entry.integer = written.integer
        entry.real = written.real
        written.bytes.withUnsafeBufferPointer { bytes in
            entry.bytes = bytes.baseAddress
            entry.length = Int32(bytes.count)
            let start = body.count
            body += [UInt8](repeating: 0, count: Int(pathbase_entry_size(&entry, &base)))
            body.withUnsafeMutableBufferPointer { buffer in
                #expect(Int(pathbase_entry_put(buffer.baseAddress! + start, &entry, &base)) == buffer.count - start)
            }
        }
    }

    private static func read(_ body: [UInt8]) -> [Written]? {
        var entries: [Written] = []
        var offset: Int32 = 0
        var entry = pathbase_entry()
        while true {
            let result = body.withUnsafeBufferPointer { pathbase_body_next($0.baseAddress, Int32($0.count), &offset, &entry) }
            if result == 0 { return entries }
            if result < 0 { return nil }
            entries.append(
                Written(
                    property: entry.property, tag: entry.tag, time: entry.time, counter: entry.counter, replica: entry.replica,
                    kind: entry.kind, integer: entry.integer, real: entry.real,
                    bytes: entry.length > 0 ? Array(UnsafeBufferPointer(start: entry.bytes, count: Int(entry.length))) : []
                ))
        }
    }

    @Test("Entries of every kind and extreme field values read back as written, and a body cut short reads as malformed", arguments: [1, 2, 3] as [UInt64])
    func roundTrip(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var written: [Written] = []
        var property = Int64.min / 2
        for _ in 0 ..< 40 {
            property += Int64(random.next() % 1000) + 1
            var entry = Written(
                property: property,
                tag: [0, 2, 14, 15, 1024 + Int64(random.next() % 5000), -1][Int(random.next() % 6)],
                time: [Int64.min, Int64.max, 0, Int64(bitPattern: random.next())][Int(random.next() % 4)],
                counter: [0, UInt32.max, UInt32(truncatingIfNeeded: random.next())][Int(random.next() % 3)],
                replica: [0, UInt32.max, UInt32(truncatingIfNeeded: random.next())][Int(random.next() % 3)],
                kind: Int32(random.next() % 5)
            )
            switch entry.kind {
            case PATHBASE_KIND_INTEGER: entry.integer = [Int64.min, Int64.max, 0, -1, Int64(bitPattern: random.next())][Int(random.next() % 5)]
            case PATHBASE_KIND_REAL: entry.real = [-0.0, .infinity, 1e-300, Double(bitPattern: random.next() >> 2)][Int(random.next() % 4)]
            case PATHBASE_KIND_TEXT, PATHBASE_KIND_BLOB: entry.bytes = (0 ..< Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            default: break
            }
            written.append(entry)
        }
        // Entries of the base's replica and time, and of others as far from it as they get.
        let base = pathbase_base(time: [Int64.min, Int64.max, 0, Int64(bitPattern: random.next())][Int(random.next() % 4)], replica: written[0].replica)
        var body = Self.emptyBody(base: base)
        #expect(Self.read(body) == [])
        for entry in written { Self.put(entry, base: base, into: &body) }
        let read = Self.read(body)
        #expect(read == written)
        // Decoded in one call: the count when short of room, then every entry.
        var entries = [pathbase_entry](repeating: pathbase_entry(), count: written.count)
        #expect(body.withUnsafeBufferPointer { pathbase_body_decode($0.baseAddress, Int32($0.count), &entries, 3) } == Int32(written.count))
        #expect(body.withUnsafeBufferPointer { pathbase_body_decode($0.baseAddress, Int32($0.count), &entries, Int32(entries.count)) } == Int32(written.count))
        #expect(
            entries.map { [$0.property, $0.tag, $0.time, Int64($0.counter), Int64($0.replica), Int64($0.kind)] }
                == written.map { [$0.property, $0.tag, $0.time, Int64($0.counter), Int64($0.replica), Int64($0.kind)] })
        // A body too short to hold its base is malformed; an empty one has no entries.
        #expect(Self.read(Array(body.prefix(Int(PATHBASE_BASE_SIZE) - 1))) == nil)
        #expect(Self.read([]) == [])
        let valid = body.withUnsafeBufferPointer { pathbase_body_is_valid($0.baseAddress, Int32($0.count)) }
        #expect(valid == 1)
        // Every prefix that ends inside an entry is malformed, never read past its end.
        var cut = body
        cut.removeLast(1 + Int(random.next() % 8))
        #expect(Self.read(cut) == nil)
        #expect(cut.withUnsafeBufferPointer { pathbase_body_decode($0.baseAddress, Int32($0.count), &entries, Int32(entries.count)) } == -1)
        for entry in written.shuffled(using: &random).prefix(5) {
            var found = pathbase_entry()
            let result = body.withUnsafeBufferPointer { pathbase_body_find($0.baseAddress, Int32($0.count), entry.property, &found) }
            #expect(result == 1 && found.property == entry.property && found.time == entry.time && found.tag == entry.tag)
        }
        // A search steps over earlier entries: one between two entries is absent, and one
        // past a cut is malformed, never read past the end.
        let gaps = zip(written, written.dropFirst()).filter { $1.property - $0.property > 1 }
        for (before, _) in gaps.prefix(3) {
            var found = pathbase_entry()
            #expect(body.withUnsafeBufferPointer { pathbase_body_find($0.baseAddress, Int32($0.count), before.property + 1, &found) } == 0)
        }
        if let last = written.last {
            var found = pathbase_entry()
            #expect(cut.withUnsafeBufferPointer { pathbase_body_find($0.baseAddress, Int32($0.count), last.property, &found) } == -1)
        }
    }

    @Test("SQL reads a body's values and their types through the registered functions, and the current_values view shows each entry")
    func sqlFunctions() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let database = try SQLiteDatabase(path: path)
            Person.create(in: database, id: 1, name: "Ada", age: 36)
            database.set(Optional<String>.none, for: Path(model: Person.modelId, instance: 1, property: 4))
            database.set(Double.nan, for: Path(model: Person.modelId, instance: 1, property: 7))
            database.close()
        }
        let queue = try rawQueue(path: path)
        let (name, age, nickname, score, missing, rows) = try queue.read { db in
            (
                try String.fetchOne(db, sql: "SELECT pathbase_value(body, 1) FROM instance_values WHERE instance = 1"),
                try Int.fetchOne(db, sql: "SELECT pathbase_value(body, 2) FROM instance_values WHERE instance = 1"),
                try Row.fetchOne(db, sql: "SELECT pathbase_type(body, 4) AS type, pathbase_value(body, 4) AS value FROM instance_values WHERE instance = 1"),
                try Row.fetchOne(db, sql: "SELECT pathbase_type(body, 7) AS type, pathbase_value(body, 7) AS value FROM instance_values WHERE instance = 1"),
                try Row.fetchOne(db, sql: "SELECT pathbase_type(body, 99) AS type FROM instance_values WHERE instance = 1"),
                try Row.fetchAll(db, sql: "SELECT property, type FROM current_values WHERE model = ? AND instance = 1 ORDER BY property", arguments: [Person.modelId])
            )
        }
        try queue.close()
        #expect(name == "Ada")
        #expect(age == 36)
        #expect(nickname?["type"] == 0 as Int64 && (nickname?["value"] as String?) == nil)
        // NaN is stored as SQLite stores it: NULL under Double's tag.
        #expect(score?["type"] == 12 as Int64 && (score?["value"] as Double?) == nil)
        #expect((missing?["type"] as Int64?) == nil)
        // The status and every property, written when the person was created.
        #expect(rows.map { $0["property"] as Int64 } == Array(0 ... 12))
    }

    @Test("A damaged body is reported by checkIntegrity and by the reads of its instance; other instances read")
    func damagedBody() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        try createAdaAndBob(at: path)
        let queue = try rawQueue(path: path)
        // A base, then an entry of property 1 cut short: no status, a malformed name.
        try queue.write { db in
            try db.execute(sql: "UPDATE instance_values SET body = x'0000000000000000000000000204ffffffff' WHERE model = ? AND instance = 1", arguments: [Person.modelId])
        }
        try queue.close()

        let errors = ErrorLog()
        let database = try SQLiteDatabase(path: path, options: .init(errorHandler: errors.handler))
        let problems = try database.checkIntegrity()
        #expect(problems.map(\.description) == ["instance_values \(Path(model: Person.modelId, instance: 1, property: 0)): a malformed instance body: its current values can't be read"])
        #expect(database.get(id: 2, of: Person.self)?.name == "Bob")
        let damaged: String? = database.get(Path(model: Person.modelId, instance: 1, property: 1))
        #expect(damaged == nil)
        #expect(!errors.errors.isEmpty)
        // A damaged body is SQLite's "corrupt" result ("The database file is damaged; run `pathbase check`").
        let damagedRead = #expect(throws: SQLiteDatabaseError.self) {
            let _: Timestamped<String>? = try database.fetch(Path(model: Person.modelId, instance: 1, property: 1))
        }
        #expect(damagedRead?.sqliteCode == SQLITE_CORRUPT, "\(String(describing: damagedRead))")
        // A listing keeps the damaged body as it is: the instance without a readable status
        // is not listed, and a read of it goes to the file, which reports it.
        let reported = errors.errors.count
        let listed = try database.read { database.all(of: Person.self).map(\.name) }
        #expect(listed == ["Bob"])
        let inListing: String? = try database.read {
            _ = database.all(of: Person.self)
            return database.get(Path(model: Person.modelId, instance: 1, property: 1))
        }
        #expect(inListing == nil)
        #expect(errors.errors.count > reported)
    }
}
