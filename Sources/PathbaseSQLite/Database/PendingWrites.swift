import CPathbaseBodies
import GRDBSQLite
import Pathbase

/// Writes of the running batch not yet handed to SQLite, stored together: each instance's
/// body read and written once per flush, and one multi-row statement per history table.
///
/// Inside a batch, every write waits here, up to ``maximumRows``. They are written before
/// anything reads the file (``SQLiteDatabase/openHandle()``; a point read only when its
/// path is waiting), before a savepoint is set or released, and before the commit; a
/// rollback drops them with the rows they stand for. A failure to write them fails the
/// batch, which then throws it, as a failed single write does. Outside a batch, a write
/// goes through here too, alone, in a transaction of its own.
///
/// A flush reads the body of every instance its rows touch and merges the rows into it in
/// order, newest-wins per property: a row newer than the property's entry replaces it, one
/// older than it (a sync pull) or the same record again does not. With history, every
/// record that is not current after the merge — the entries replaced, rows replaced by a
/// later row of the same flush, rows that arrived older — goes into `superseded_records`,
/// and every row's path and time into a run of `record_runs` (``RecordRun``; the first
/// ignores a record it holds already, a record in two runs is read once).
/// Without history, `record_times` holds the current records' times: a replaced entry's
/// time goes, the new one's comes. Statuses and reference lists update in-memory mirrors
/// and `list_members` when they become current (`becameCurrent`). Used while holding the
/// database's lock.
final class PendingWrites: RowMirror {

    /// Rows per flush: enough to hold several objects' properties, few enough that the
    /// statements of every size stay small.
    static let maximumRows = 16

    /// Records per run of `record_runs`: the paths and times of several flushes wait for
    /// one row, so that a batch's runs take a few bytes per record and a row each few
    /// hundred records. A blob of this many spans a few pages.
    static let maximumRunRecords = 1024

    struct Row {
        let path: Path
        let timestamp: Pathbase.Timestamp
        let tag: Int64
        let value: StoredValue

        /// A status or a reference list: its mirrors follow it when it becomes current.
        var isMirrored: Bool {
            path.property == PropertyKey.instanceId || tag == ValueTag.integerArray.rawValue
        }
    }

    /// Checked by every read: unchecked exclusivity, as the database's lock guards it.
    @exclusivity(unchecked) private var rows: [Row] = []
    /// With history, the paths and times of the rows flushed since the last run was written.
    private var runRecords: [RecordRun.Record] = []
    /// The multi-row statements by row count (index 0 holds one row).
    private var insertRecordTimes: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var upsertBodies: [Statement?] = Array(repeating: nil, count: maximumRows)
    private var insertSuperseded: [Statement?] = Array(repeating: nil, count: maximumRows)
    /// (?1 model, ?2 instance) → (body).
    private var selectBody: Statement?
    /// (?1 time, ?2 counter, ?3 replica, ?4 model, ?5 instance, ?6 property): forgets a
    /// replaced record's time (files without history).
    private var deleteRecordTime: Statement?
    /// (?1 time, ?2 counter, ?3 replica, ?4 end time, ?5 records): stores a run of records.
    private var insertRun: Statement?

    /// The bodies listed in the running transaction: a flush reads the bodies it merges
    /// into from there when it can, and writes the merged ones through to it.
    private let listing: ListingColumns

    init(listing: ListingColumns) {
        self.listing = listing
        rows.reserveCapacity(Self.maximumRows)
    }

    var isEmpty: Bool { rows.isEmpty }
    var isFull: Bool { rows.count >= Self.maximumRows }

    func append(_ row: Row) {
        rows.append(row)
    }

    /// Whether a write of `path` is waiting: a read of it must write them first.
    @inline(__always)
    func contains(_ path: Path) -> Bool {
        rows.contains { $0.path == path }
    }

    /// Merges the waiting rows into their instances' bodies and writes them (with history:
    /// what is not current into `superseded_records`, and every row's path and time into
    /// the next run of `record_runs`), calls `becameCurrent` with each status or list that
    /// became its path's current value, and forgets them; on a failure they are forgotten
    /// too (the batch fails and rolls back). The run is written when it is full, and when
    /// `endingRun`: before a savepoint is set or released, before the commit, and before
    /// records are read by time. It is several statements: outside a batch, the caller
    /// runs it in a transaction.
    func write(keepsHistory: Bool, endingRun: Bool, connection: OpaquePointer, becameCurrent: (Row) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        guard !rows.isEmpty || (endingRun && !runRecords.isEmpty) else { return }
        defer { forget() }
        // What the listing keeps is what the file holds before this flush (or nothing).
        listing.dropIfChanged(connection: connection)
        var merges: [BodyMerge] = []
        for position in rows.indices {
            let instance = ModelInstance(model: rows[position].path.model, instance: rows[position].path.instance)
            if let index = merges.firstIndex(where: { $0.instance == instance }) {
                try merges[index].merge(rows, at: position, keepsHistory: keepsHistory, becameCurrent: becameCurrent)
            } else {
                var merge = try BodyMerge(instance: instance, body: try readBody(instance, connection: connection))
                try merge.merge(rows, at: position, keepsHistory: keepsHistory, becameCurrent: becameCurrent)
                merges.append(merge)
            }
        }
        let changed = merges.filter { $0.isChanged }
        if !changed.isEmpty {
            let upsert = try statement(&upsertBodies, count: changed.count, Self.upsertBodiesSQL, connection: connection)
            var written: [(instance: ModelInstance, body: [UInt8])] = []
            written.reserveCapacity(changed.count)
            for (index, merge) in changed.enumerated() {
                let parameter = Int32(index * 3 + 1)
                let body = merge.bytes(rows)
                upsert.bind(merge.instance.model, at: parameter)
                upsert.bind(merge.instance.instance, at: parameter + 1)
                upsert.bind(bytes: body, at: parameter + 2)
                written.append((merge.instance, body))
            }
            try run(upsert, connection: connection)
            listing.bodiesWritten(written)
        }
        // With history, every row's path and time goes into a run of `record_runs`; without,
        // the current ones' into `record_times`.
        if keepsHistory {
            for row in rows { runRecords.append(RecordRun.Record(path: row.path, timestamp: row.timestamp)) }
            if endingRun || runRecords.count >= Self.maximumRunRecords { try writeRuns(connection: connection) }
        }
        var times: [(path: Path, timestamp: Pathbase.Timestamp)] = []
        var superseded: [Row] = []
        for merge in merges {
            superseded += merge.superseded
            if !keepsHistory {
                for replaced in merge.replacedTimes { try forgetTime(replaced.path, replaced.timestamp, connection: connection) }
                times += merge.newTimes(rows)
            }
        }
        for start in stride(from: 0, to: times.count, by: Self.maximumRows) {
            let slice = times[start ..< min(times.count, start + Self.maximumRows)]
            let statement = try self.statement(&insertRecordTimes, count: slice.count, Self.insertRecordTimesSQL, connection: connection)
            for (index, time) in slice.enumerated() {
                let parameter = Int32(index * 6 + 1)
                statement.bind(time.timestamp, at: parameter)
                statement.bind(time.path.model, at: parameter + 3)
                statement.bind(time.path.instance, at: parameter + 4)
                statement.bind(time.path.property, at: parameter + 5)
            }
            try run(statement, connection: connection)
        }
        if keepsHistory {
            for start in stride(from: 0, to: superseded.count, by: Self.maximumRows) {
                let slice = superseded[start ..< min(superseded.count, start + Self.maximumRows)]
                let statement = try self.statement(&insertSuperseded, count: slice.count, Self.insertSupersededSQL, connection: connection)
                for (index, record) in slice.enumerated() {
                    let parameter = Int32(index * 8 + 1)
                    statement.bind(record.path.model, at: parameter)
                    statement.bind(record.path.property, at: parameter + 1)
                    statement.bind(record.path.instance, at: parameter + 2)
                    statement.bind(record.timestamp, at: parameter + 3)
                    statement.bind(record.tag, at: parameter + 6)
                    statement.bind(record.value, at: parameter + 7)
                }
                try run(statement, connection: connection)
            }
        }
        // The other tables changed too; the kept bodies are the file's.
        listing.flushEnded(connection: connection)
    }

    /// Stores the paths and times of the flushed rows as a run of records (or a few, see
    /// ``RecordRun/maximumSpan``).
    private func writeRuns(connection: OpaquePointer) throws(SQLiteDatabaseError) {
        var records = runRecords
        runRecords.removeAll(keepingCapacity: true)
        // Local writes come in timestamp order already.
        if !zip(records, records.dropFirst()).allSatisfy({ RecordRun.Record.precedes($0, $1) }) {
            records.sort(by: RecordRun.Record.precedes)
        }
        for run in RecordRun.runs(records) {
            guard let first = run.first else { continue }
            let statement = try prepared(&insertRun, "INSERT INTO record_runs(time, counter, replica, end_time, records) VALUES (?1, ?2, ?3, ?4, ?5)", connection: connection)
            statement.bind(first.timestamp, at: 1)
            statement.bind(run.last?.timestamp.time ?? first.timestamp.time, at: 4)
            statement.bind(bytes: RecordRun.encode(run), at: 5)
            try self.run(statement, connection: connection)
        }
    }

    /// The stored body of an instance; empty when it has none.
    private func readBody(_ instance: ModelInstance, connection: OpaquePointer) throws(SQLiteDatabaseError) -> InstanceBody {
        if let kept = listing.keptBody(of: instance) { return InstanceBody(bytes: Array(kept)) }
        let statement = try prepared(&selectBody, "SELECT body FROM instance_values WHERE model = ?1 AND instance = ?2", connection: connection)
        statement.bind(instance.model, at: 1)
        statement.bind(instance.instance, at: 2)
        defer { statement.reset() }
        guard try statement.hasRow() else { return InstanceBody(bytes: []) }
        return statement.withBytes(at: 0) { InstanceBody(bytes: Array($0)) }
    }

    /// Forgets the time of a record that is no longer current (files without history).
    private func forgetTime(_ path: Path, _ timestamp: Pathbase.Timestamp, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let statement = try prepared(
            &deleteRecordTime,
            """
            DELETE FROM record_times
            WHERE time = ?1 AND counter = ?2 AND replica = ?3 AND model = ?4 AND instance = ?5 AND property = ?6
            """, connection: connection)
        statement.bind(timestamp, at: 1)
        statement.bind(path.model, at: 4)
        statement.bind(path.instance, at: 5)
        statement.bind(path.property, at: 6)
        try run(statement, connection: connection)
    }

    func rowsRolledBack() {
        forget()
        runRecords.removeAll(keepingCapacity: true)
    }

    private func forget() {
        rows.removeAll(keepingCapacity: true)
    }

    func finalize() {
        for statement in insertRecordTimes + upsertBodies + insertSuperseded { statement?.finalize() }
        selectBody?.finalize()
        selectBody = nil
        deleteRecordTime?.finalize()
        deleteRecordTime = nil
        insertRun?.finalize()
        insertRun = nil
        insertRecordTimes = Array(repeating: nil, count: Self.maximumRows)
        upsertBodies = Array(repeating: nil, count: Self.maximumRows)
        insertSuperseded = Array(repeating: nil, count: Self.maximumRows)
        rows.removeAll()
        runRecords.removeAll()
    }

    /// The statement `cache` holds, compiled the first time.
    private func prepared(_ cache: inout Statement?, _ sql: String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = cache { return statement }
        let statement = try Statement(sql: sql, connection: connection)
        cache = statement
        return statement
    }

    /// The statement for `count` rows, compiled the first time.
    private func statement(_ cache: inout [Statement?], count: Int, _ sql: (Int) -> String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = cache[count - 1] { return statement }
        let statement = try Statement(sql: sql(count), connection: connection)
        cache[count - 1] = statement
        return statement
    }

    /// Runs a bound statement.
    private func run(_ statement: Statement, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        let code = statement.step()
        statement.reset()
        guard code == SQLITE_DONE else {
            throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    private static func values(_ count: Int, columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: count).joined(separator: ", ")
    }

    private static func insertRecordTimesSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO record_times(\(Schema.recordTimeColumns)) VALUES \(values(count, columns: 6))"
    }

    private static func upsertBodiesSQL(_ count: Int) -> String {
        """
        INSERT INTO instance_values(model, instance, body) VALUES \(values(count, columns: 3))
        ON CONFLICT(model, instance) DO UPDATE SET body = excluded.body
        """
    }

    private static func insertSupersededSQL(_ count: Int) -> String {
        "INSERT OR IGNORE INTO superseded_records(\(Schema.recordColumns)) VALUES \(values(count, columns: 8))"
    }
}

/// The rows of one flush merged into one instance's body.
private struct BodyMerge {
    let instance: ModelInstance
    /// The body as stored.
    let stored: InstanceBody
    /// The current record of each property after the rows merged so far, in property
    /// order (a body's order: its entries come sorted, rows are inserted in place). Plain
    /// data, so that inserting one moves bytes only (a slot holding its row cost a retain
    /// and a release per slot moved, and as much again per slot written).
    private var slots: [Slot]
    private(set) var isChanged = false
    /// Records that are not current (for `superseded_records`).
    private(set) var superseded: [PendingWrites.Row] = []
    /// Stored entries replaced (their times go, without history).
    private(set) var replacedTimes: [(path: Path, timestamp: Pathbase.Timestamp)] = []

    struct Slot {
        let property: PropertyKey
        let timestamp: Pathbase.Timestamp
        let source: Source
    }

    enum Source {
        /// An entry of the stored body, at these bytes.
        case stored(Range<Int>)
        /// A row of the flush, at this index.
        case row(Int)
    }

    init(instance: ModelInstance, body: InstanceBody) throws(SQLiteDatabaseError) {
        self.instance = instance
        self.stored = body
        slots = try body.entries().map { Slot(property: $0.property, timestamp: $0.timestamp, source: .stored($0.range)) }
        // Room for the rows a flush usually brings: growing from an exact fit reallocated
        // the slots on most inserts of a new instance's values.
        slots.reserveCapacity(slots.count + 8)
    }

    /// Merges the row at `index` of `rows`, newest-wins.
    mutating func merge(_ rows: [PendingWrites.Row], at index: Int, keepsHistory: Bool, becameCurrent: (PendingWrites.Row) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        let row = rows[index]
        let slot = Slot(property: row.path.property, timestamp: row.timestamp, source: .row(index))
        let position = slotIndex(of: row.path.property)
        guard position < slots.count, slots[position].property == row.path.property else {
            slots.insert(slot, at: position)
            isChanged = true
            if row.isMirrored { try becameCurrent(row) }
            return
        }
        let existing = slots[position]
        if row.timestamp == existing.timestamp {
            // The same record again: it is current already.
            if row.isMirrored { try becameCurrent(row) }
            return
        }
        guard row.timestamp > existing.timestamp else {
            if keepsHistory { superseded.append(row) }
            return
        }
        switch existing.source {
        case .stored(let range):
            if keepsHistory {
                superseded.append(stored.record(InstanceBody.Entry(property: existing.property, timestamp: existing.timestamp, range: range), path: row.path))
            } else {
                replacedTimes.append((row.path, existing.timestamp))
            }
        case .row(let earlier):
            if keepsHistory { superseded.append(rows[earlier]) }
        }
        slots[position] = slot
        isChanged = true
        if row.isMirrored { try becameCurrent(row) }
    }

    /// The index of `property`'s slot, or where it goes.
    private func slotIndex(of property: PropertyKey) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].property < property { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The times of the rows that are current after the merge (without history, what
    /// `record_times` gets).
    func newTimes(_ rows: [PendingWrites.Row]) -> [(path: Path, timestamp: Pathbase.Timestamp)] {
        slots.compactMap { slot in
            if case .row(let index) = slot.source { return (rows[index].path, slot.timestamp) }
            return nil
        }
    }

    /// The merged body: its size first, then each entry written in place (appending
    /// entry by entry, each grown by zeros first, cost more than the SQL that stores it).
    /// It keeps the stored body's base, so that the stored entries it keeps are copied as
    /// they are; a new body takes its first row's time and replica.
    func bytes(_ rows: [PendingWrites.Row]) -> [UInt8] {
        guard let firstSlot = slots.first else { return [] }
        var base = pathbase_base()
        let hasBase = stored.bytes.withUnsafeBufferPointer { body in
            body.baseAddress.map { pathbase_body_base($0, Int32(body.count), &base) == 1 } ?? false
        }
        if !hasBase {
            // A stored body without a base is empty (`entries()` checked it): every slot is a row.
            base.time = firstSlot.timestamp.time
            base.replica = firstSlot.timestamp.replica
        }
        var size = Int(PATHBASE_BASE_SIZE)
        for slot in slots {
            switch slot.source {
            case .stored(let range): size += range.count
            case .row(let index): size += Int(Self.withEntry(of: rows[index]) { pathbase_entry_size(&$0, &base) })
            }
        }
        return stored.bytes.withUnsafeBytes { storedBytes in
            [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                guard let start = buffer.baseAddress else { return }
                pathbase_base_put(start, &base)
                count = Int(PATHBASE_BASE_SIZE)
                for slot in slots {
                    switch slot.source {
                    case .stored(let range):
                        guard let source = storedBytes.baseAddress else { continue }
                        UnsafeMutableRawPointer(start + count).copyMemory(from: source + range.lowerBound, byteCount: range.count)
                        count += range.count
                    case .row(let index):
                        let at = count
                        count += Int(Self.withEntry(of: rows[index]) { pathbase_entry_put(start + at, &$0, &base) })
                    }
                }
            }
        }
    }

    private static func withEntry<Result>(of row: PendingWrites.Row, _ body: (inout pathbase_entry) -> Result) -> Result {
        InstanceBody.withEntry(row.path.property, tag: row.tag, timestamp: row.timestamp, value: row.value, body)
    }
}
