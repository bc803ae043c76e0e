import CPathbaseBodies
import GRDBSQLite
import Pathbase

extension SQLiteDatabase {

    /// The current value at a path, or `nil` if none is stored or it is not a `Value`.
    ///
    /// ```swift
    /// let name: String? = database.get(Path(model: 1, instance: 7, property: 1))
    /// ```
    ///
    /// A failure of SQLite returns `nil` and goes to ``Options/errorHandler``; use
    /// ``fetch(_:at:)`` to get it thrown instead.
    // Specialized for the common property types: called through `any Database`, the
    // generic body looks up type metadata for every read; these copies do not.
    @_specialize(where Value == Int)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    @_specialize(where Value == InstanceStatus)
    public func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        reporting(nil) { () throws(SQLiteDatabaseError) in
            try readCurrentValue(path, as: Value.self)
        }
    }

    /// The newest value at a path written at or before `timestamp` (the current value when
    /// `nil`), with its timestamp.
    ///
    /// ```swift
    /// let before: Timestamped<String>? = database.get(path, at: Timestamp(latestAt: yesterday))
    /// ```
    ///
    /// Without history, only the current value is known: it is returned if it was written
    /// at or before `timestamp`, otherwise `nil`.
    public func get<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?) -> Timestamped<Value>? {
        reporting(nil) { () throws(SQLiteDatabaseError) in
            try read(path, at: timestamp, as: Value.self)
        }
    }

    /// Calls `predicate` with every instance of a model that had a status at `timestamp`
    /// (now when `nil`), with the status it had then, and returns the non-`nil` results.
    ///
    /// ```swift
    /// let existedYesterday = database.all(model: 1, at: Timestamp(latestAt: yesterday)) { id, status in
    ///     status == .created ? id : nil
    /// }
    /// ```
    ///
    /// Instances created after `timestamp` are not listed, and deleted ones are listed as
    /// `.deleted` only if they were deleted by then. The predicate runs after the database
    /// is read, so it may use the database.
    public func all<T>(model: ModelKey, at timestamp: Timestamp?, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        let statuses: [(InstanceKey, InstanceStatus)] = reporting([]) { () throws(SQLiteDatabaseError) in
            try readStatuses(model: model, at: timestamp)
        }
        return listing(statuses, predicate)
    }

    /// The records written after `timestamp` (all when `nil`), oldest first, at most `limit`.
    ///
    /// ```swift
    /// let page = database.records(after: cursor, limit: 500)
    /// ```
    ///
    /// Records are ordered by timestamp, then path. Each value is of the type that wrote it
    /// (see `EncodedValue` for `Codable` types this process hasn't used). Without history,
    /// these are the current values written after `timestamp`.
    public func records(after timestamp: Timestamp?, limit: Int?) -> [Record] {
        reporting([]) { () throws(SQLiteDatabaseError) in
            try readRecords(after: timestamp, limit: limit)
        }
    }

    /// Every record stored at a path, oldest first (without history: the current one).
    ///
    /// ```swift
    /// for record in database.records(at: path) { print(record.timestamp, record.value) }
    /// ```
    public func records(at path: Path) -> [Record] {
        reporting([]) { () throws(SQLiteDatabaseError) in
            try readRecords(at: path)
        }
    }

    /// The newest record at a path, whatever its value type: the current value.
    ///
    /// ```swift
    /// let latest = database.latestRecord(at: path)
    /// ```
    ///
    /// One primary-key lookup, without reading the path's history.
    public func latestRecord(at path: Path) -> Record? {
        reporting(nil) { () throws(SQLiteDatabaseError) -> Record? in
            _ = try openHandle(reading: path)
            return try withCurrentRow(path) { row throws(SQLiteDatabaseError) in
                Record(path: path, timestamp: row.timestamp, value: try codec.anyValue(from: row, tag: 0, value: 1))
            }
        }
    }

    /// The earliest moment whose state the database knows exactly: when it keeps history,
    /// `nil` (all of it) until ``prune(before:)`` moves it; without history, the newest
    /// write, since older states are unknown.
    ///
    /// ```swift
    /// if let start = database.historyStart { print("history starts at", start) }
    /// ```
    public var historyStart: Timestamp? {
        reporting(nil) { () throws(SQLiteDatabaseError) -> Timestamp? in
            let handle = try openHandle()
            guard keepsHistory else {
                let statement = statements.selectNewestCurrent
                defer { statement.reset() }
                return try statement.hasRow() ? statement.timestamp(at: 0) : nil
            }
            return try readPrunedBefore(handle)
        }
    }

    /// The values a path held, oldest first, skipping records of another type.
    ///
    /// ```swift
    /// let titles = database.history(of: note.path(of: .title), as: String.self).map(\.value)
    /// ```
    ///
    /// Unlike the protocol extension's version, this one also decodes `Codable` values
    /// this process has not used before.
    public func history<Value: DatabaseValue>(of path: Path, as type: Value.Type = Value.self) -> [Timestamped<Value>] {
        reporting([]) { () throws(SQLiteDatabaseError) in
            try readHistory(of: path, as: type)
        }
    }

    // MARK: Implementations (called while holding the lock)

    /// Reports an error of a non-throwing call.
    func report(_ error: SQLiteDatabaseError) {
        errorHandler(error)
    }

    /// Runs `body` under the lock; reports its error and returns `fallback` if it throws.
    @inline(__always)
    func reporting<T>(_ fallback: @autoclosure () -> T, _ body: () throws(SQLiteDatabaseError) -> T) -> T {
        locked { () -> T in
            do throws(SQLiteDatabaseError) {
                return try body()
            } catch {
                noteTransactionLoss(error)
                report(error)
                return fallback()
            }
        }
    }

    /// The current value at a path with its timestamp; `nil` if none is stored or it is
    /// not a `Value`.
    func readCurrent<Value: DatabaseValue>(_ path: Path, as type: Value.Type) throws(SQLiteDatabaseError) -> Timestamped<Value>? {
        _ = try openHandle(reading: path)
        return try withCurrentRow(path) { row throws(SQLiteDatabaseError) in
            try codec.decode(type, entry: row).map { Timestamped(value: $0, timestamp: row.timestamp) }
        }
    }

    /// The current value at a path; `nil` if none is stored or it is not a `Value`. Inside a
    /// transaction, a listed model's values come from ``ListingColumns``.
    @inline(__always)
    func readCurrentValue<Value: DatabaseValue>(_ path: Path, as type: Value.Type) throws(SQLiteDatabaseError) -> Value? {
        let handle = try openHandle(reading: path)
        if transaction.inBatch {
            switch try listingColumns.value(at: path, connection: handle) {
            case .absent:
                return nil
            case .kept(let kept):
                return try codec.decode(type, entry: kept)
            case .notKept:
                break
            }
        }
        return try withCurrentRow(path) { row throws(SQLiteDatabaseError) in
            try codec.decode(type, entry: row)
        }
    }

    /// Runs `body` on the current record at `path`, an entry of its instance's body (type,
    /// value, time, counter, replica); `nil` when there is none. The caller has opened the
    /// handle.
    @inline(__always)
    func withCurrentRow<Result>(_ path: Path, _ body: (BodyEntryColumns) throws(SQLiteDatabaseError) -> Result?) throws(SQLiteDatabaseError) -> Result? {
        let statement = statements.selectBody
        statement.bind(path.model, at: 1)
        statement.bind(path.instance, at: 2)
        defer { statement.reset() }
        guard try statement.hasRow(), let entry = try statement.bodyEntry(at: 0, property: path.property) else { return nil }
        return try body(entry)
    }

    func read<Value: DatabaseValue>(_ path: Path, at timestamp: Timestamp?, as type: Value.Type) throws(SQLiteDatabaseError) -> Timestamped<Value>? {
        guard let timestamp else { return try readCurrent(path, as: type) }
        guard keepsHistory else {
            // Only the current record is known: it is the answer if it is old enough.
            guard let current = try readCurrent(path, as: type), current.timestamp <= timestamp else { return nil }
            return current
        }
        _ = try openHandle(reading: path)
        let statement = statements.selectRecordAt
        statement.bindPath(path)
        statement.bind(timestamp, at: 4)
        defer { statement.reset() }
        guard try statement.hasRow(),
            let value = try codec.decode(type, from: statement, tag: 0, value: 1)
        else { return nil }
        return Timestamped(value: value, timestamp: statement.timestamp(at: 2))
    }

    func readStatuses(model: ModelKey, at timestamp: Timestamp?) throws(SQLiteDatabaseError) -> [(InstanceKey, InstanceStatus)] {
        let handle = try openHandle()
        var statuses: [(InstanceKey, InstanceStatus)] = []
        if let timestamp, keepsHistory {
            // An instance's rows come together: the newest is its status at `timestamp`.
            let statement = statements.selectStatusRecordsAt
            statement.bind(model, at: 1)
            statement.bind(timestamp, at: 2)
            defer { statement.reset() }
            var last: (instance: InstanceKey, timestamp: Timestamp, status: InstanceStatus?)?
            func keepLast() {
                if let last, let status = last.status { statuses.append((last.instance, status)) }
            }
            while try statement.hasRow() {
                let instance = Int(statement.int64(at: 0))
                let written = statement.timestamp(at: 3)
                if let last, last.instance == instance, last.timestamp > written { continue }
                if last?.instance != instance { keepLast() }
                last = (instance, written, try listedStatus(from: statement, tag: 1, value: 2))
            }
            keepLast()
            // Instances ascending, as the current statuses are listed.
            statuses.sort { $0.0 < $1.0 }
            return statuses
        }
        if timestamp == nil, transaction.inBatch {
            // A listing in a transaction: reads of its instances' properties are likely to
            // follow, and the bodies hold the statuses: one scan keeps both.
            try listingColumns.willReadAll(model, connection: handle)
            if let kept = try listingColumns.keptStatuses(
                of: model, connection: handle,
                { kept throws(SQLiteDatabaseError) in
                    Self.listed(try codec.decode(InstanceStatus.self, entry: kept))
                })
            {
                return kept
            }
        }
        let statement = statements.selectCurrentStatuses
        statement.bind(model, at: 1)
        defer { statement.reset() }
        while try statement.hasRow() {
            if let timestamp, statement.timestamp(at: 3) > timestamp { continue }
            if let status = try listedStatus(from: statement, tag: 1, value: 2) {
                statuses.append((Int(statement.int64(at: 0)), status))
            }
        }
        return statuses
    }

    /// The status in a row's columns as a listing shows it: `nil` for none, and for a stored
    /// `.notCreated` (written by undo), which means the same as none.
    private func listedStatus(from columns: some ValueColumns, tag: Int32, value: Int32) throws(SQLiteDatabaseError) -> InstanceStatus? {
        Self.listed(try codec.decode(InstanceStatus.self, from: columns, tag: tag, value: value))
    }

    /// A status as a listing shows it (see ``listedStatus(from:tag:value:)``).
    private static func listed(_ status: InstanceStatus?) -> InstanceStatus? {
        status == .notCreated ? nil : status
    }

    /// With history: the records of `record_runs` merged with those `record_times` holds
    /// from before format 7, by timestamp then path, each once.
    func readRecords(after timestamp: Timestamp?, limit: Int?) throws(SQLiteDatabaseError) -> [Record] {
        // The batch's records not yet in a run are written first.
        if transaction.inBatch { try writePending(try writeHandle(), endingRun: true) }
        let listed = try readListedRecords(after: timestamp, limit: limit)
        guard keepsHistory else { return listed }
        let runs = try readRunRecords(after: timestamp, limit: limit)
        guard !listed.isEmpty else { return runs }
        return Self.first(limit, of: listed + runs)
    }

    /// The first `limit` (all when `nil`) of `records` by timestamp then path, each
    /// (path, timestamp) once.
    private static func first(_ limit: Int?, of records: [Record]) -> [Record] {
        let sorted = records.sorted { RecordRun.precedes($0.path, $0.timestamp, $1.path, $1.timestamp) }
        var result: [Record] = []
        result.reserveCapacity(min(sorted.count, limit ?? sorted.count))
        for record in sorted where result.last.map({ $0.path != record.path || $0.timestamp != record.timestamp }) ?? true {
            if let limit, result.count >= limit { break }
            result.append(record)
        }
        return result
    }

    /// The records of `record_runs` after `timestamp`, the first `limit` by timestamp then
    /// path, each with its value (current, or superseded; a record pruned since is left out).
    /// Runs are read in the order of their first record, from ``RecordRun/maximumSpan``
    /// before `timestamp`, until the next run starts after the `limit`th record found; a run
    /// whose last record is older than `timestamp`'s time is skipped by the index.
    private func readRunRecords(after timestamp: Timestamp?, limit: Int?) throws(SQLiteDatabaseError) -> [Record] {
        if let limit, limit <= 0 { return [] }
        let statement = statements.selectRunsFrom
        statement.bind(timestamp.map { RecordRun.earliestStart(holdingRecordsAfter: $0.time) } ?? Int64.min, at: 1)
        // A run that ends before the cursor's time holds nothing after it: left unread.
        statement.bind(timestamp?.time ?? Int64.min, at: 2)
        defer { statement.reset() }
        var found: [Record] = []
        var recent = RecentBody()
        // The `limit`th record's timestamp once that many are found: later runs can't come before it.
        var bound: Timestamp?
        while try statement.hasRow() {
            let first = statement.timestamp(at: 0)
            if let bound, first > bound { break }
            let run = statement.withBytes(at: 3) { RecordRun.decode($0, firstTime: first.time, firstReplica: first.replica) }
            guard let run else { throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed run of records") }
            // A run's records are in order: once it gave `limit` records, its later ones come
            // after all of those and can't be among the first `limit`.
            var fromRun = 0
            var previous: RecordRun.Record?
            for record in run where timestamp.map({ record.timestamp > $0 }) ?? true {
                if let bound, record.timestamp > bound { break }
                if let limit, fromRun >= limit { break }
                if let value = try recordValue(at: record.path, timestamp: record.timestamp, recent: &recent) {
                    found.append(Record(path: record.path, timestamp: record.timestamp, value: value))
                    // A record pulled twice is listed once: it counts once.
                    if previous.map({ $0.path != record.path || $0.timestamp != record.timestamp }) ?? true { fromRun += 1 }
                    previous = record
                }
            }
            if let limit, found.count >= limit {
                found = Self.first(limit, of: found)
                if found.count == limit { bound = found.last?.timestamp }
            }
        }
        return Self.first(limit, of: found)
    }

    /// The body of the instance whose records were looked up last: a run lists an instance's
    /// records one after another, and reading its body once for all of them took a third
    /// of the lookups' time.
    struct RecentBody {
        var instance: ModelInstance?
        var bytes: [UInt8] = []
    }

    /// The value of the record at `path` written at `timestamp`: the current one if it is
    /// that record, else the superseded one; `nil` when neither is stored (pruned).
    func recordValue(at path: Path, timestamp: Timestamp, recent: inout RecentBody) throws(SQLiteDatabaseError) -> (any DatabaseValue)? {
        let instance = ModelInstance(model: path.model, instance: path.instance)
        if recent.instance != instance {
            let statement = statements.selectBody
            statement.bind(path.model, at: 1)
            statement.bind(path.instance, at: 2)
            defer { statement.reset() }
            recent.bytes = try statement.hasRow() ? statement.withBytes(at: 0) { Array($0) } : []
            recent.instance = instance
        }
        let current = try recent.bytes.withUnsafeBufferPointer { body throws(SQLiteDatabaseError) -> (any DatabaseValue)? in
            guard let base = body.baseAddress else { return nil }
            var entry = pathbase_entry()
            switch pathbase_body_find(base, Int32(body.count), Int64(path.property), &entry) {
            case 1: return entry.timestamp == timestamp ? try codec.anyValue(from: BodyEntryColumns(entry: entry), tag: 0, value: 1) : nil
            case 0: return nil
            default: throw .sqlite(code: SQLITE_CORRUPT, message: "a malformed instance body")
            }
        }
        if let current { return current }
        let statement = statements.selectSupersededRecord
        statement.bind(path.model, at: 1)
        statement.bind(path.instance, at: 2)
        statement.bind(path.property, at: 3)
        statement.bind(timestamp, at: 4)
        defer { statement.reset() }
        guard try statement.hasRow() else { return nil }
        return try codec.anyValue(from: statement, tag: 0, value: 1)
    }

    /// The records `record_times` lists after `timestamp` (without history: the current ones).
    private func readListedRecords(after timestamp: Timestamp?, limit: Int?) throws(SQLiteDatabaseError) -> [Record] {
        _ = try openHandle()
        let statement = keepsHistory ? statements.selectRecordsAfter : statements.selectCurrentAfter
        if let timestamp {
            statement.bind(timestamp, at: 1)
        } else {
            // Before every timestamp, Timestamp.zero included.
            statement.bind(Int64.min, at: 1)
            statement.bind(Int64(-1), at: 2)
            statement.bind(Int64(-1), at: 3)
        }
        statement.bind(limit.map { Int64(max(0, $0)) } ?? -1, at: 4)
        defer { statement.reset() }
        var records: [Record] = []
        while try statement.hasRow() {
            let path = Path(
                model: Int(statement.int64(at: 0)),
                instance: Int(statement.int64(at: 2)),
                property: Int(statement.int64(at: 1))
            )
            records.append(Record(path: path, timestamp: statement.timestamp(at: 3), value: try codec.anyValue(from: statement, tag: 6, value: 7)))
        }
        return records
    }

    func readRecords(at path: Path) throws(SQLiteDatabaseError) -> [Record] {
        var records: [Record] = []
        try forEachRecord(at: path) { columns, timestamp throws(SQLiteDatabaseError) in
            records.append(Record(path: path, timestamp: timestamp, value: try codec.anyValue(from: columns, tag: 0, value: 1)))
        }
        return records
    }

    func readHistory<Value: DatabaseValue>(of path: Path, as type: Value.Type) throws(SQLiteDatabaseError) -> [Timestamped<Value>] {
        var values: [Timestamped<Value>] = []
        try forEachRecord(at: path) { columns, timestamp throws(SQLiteDatabaseError) in
            if let value = try codec.decode(type, from: columns, tag: 0, value: 1) {
                values.append(Timestamped(value: value, timestamp: timestamp))
            }
        }
        return values
    }

    /// Calls `body` with each record of `path`, oldest first, as columns (0 its type tag,
    /// 1 its value) and its timestamp: with history every record, without it the current one.
    private func forEachRecord(at path: Path, _ body: (any ValueColumns, Timestamp) throws(SQLiteDatabaseError) -> Void) throws(SQLiteDatabaseError) {
        _ = try openHandle()
        guard keepsHistory else {
            _ = try withCurrentRow(path) { entry throws(SQLiteDatabaseError) -> Void? in try body(entry, entry.timestamp) }
            return
        }
        let statement = statements.selectRecordsAtPath
        statement.bindPath(path)
        defer { statement.reset() }
        while try statement.hasRow() {
            try body(statement, statement.timestamp(at: 2))
        }
    }
}
