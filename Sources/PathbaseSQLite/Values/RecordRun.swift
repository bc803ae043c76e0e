import Pathbase

/// The records a batch wrote, as a row of `record_runs` holds them (storage format 7): the
/// first record's timestamp and (format 8) the last record's time in the row's columns,
/// every record's path and timestamp in one blob, in timestamp order. One row per run of
/// records instead of one per record: the per-record rows of `record_times` (a b-tree
/// insert with a uniqueness check each) were a third of a batched save. A run holds up to ``PendingWrites/maximumRunRecords`` records.
///
/// A run spans at most ``maximumSpan`` of time, so that the runs holding records after a
/// timestamp start no earlier than that much before it. Runs of two connections, or of a
/// pull of old records, may overlap in time; ``SQLiteDatabase`` merges them by timestamp,
/// and a record written twice (pulled again) is listed once.
///
/// The blob (format 8) writes each record against the one before it, so that an object's
/// records take a few bytes each: a flags byte (the model, the instance, the replica
/// differ from the previous record's), those that differ (varints of their bit patterns),
/// then the property (a varint of its bit pattern), the time after the previous record's
/// and the counter (varints). Before the first record, the model and instance are 0, and
/// the time and replica the row's. Format 7 wrote each record whole: model, instance,
/// property, the time after the first record's, counter and replica (``decodeFormat7(_:firstTime:)``).
enum RecordRun {

    /// The widest span of time one run covers, in microseconds.
    static let maximumSpan: Int64 = 60_000_000

    struct Record {
        let path: Path
        let timestamp: Pathbase.Timestamp

        static func precedes(_ a: Record, _ b: Record) -> Bool {
            RecordRun.precedes(a.path, a.timestamp, b.path, b.timestamp)
        }
    }

    /// Timestamp order, then path: the order of `records(after:)`.
    static func precedes(_ a: Path, _ aTime: Pathbase.Timestamp, _ b: Path, _ bTime: Pathbase.Timestamp) -> Bool {
        if aTime != bTime { return aTime < bTime }
        if a.model != b.model { return a.model < b.model }
        if a.instance != b.instance { return a.instance < b.instance }
        return a.property < b.property
    }

    /// Records in ``Record/precedes(_:_:)`` order, cut into runs of at most ``maximumSpan``.
    static func runs(_ sorted: [Record]) -> [ArraySlice<Record>] {
        var runs: [ArraySlice<Record>] = []
        var start = sorted.startIndex
        for index in sorted.indices where span(from: sorted[start].timestamp.time, to: sorted[index].timestamp.time) > maximumSpan {
            runs.append(sorted[start ..< index])
            start = index
        }
        if start < sorted.endIndex { runs.append(sorted[start...]) }
        return runs
    }

    /// The time from `start` to `end` (`end` not before it), `Int64.max` past what it holds.
    private static func span(from start: Int64, to end: Int64) -> Int64 {
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? .max : difference
    }

    /// The earliest first timestamp of a run that may hold records after `time`.
    static func earliestStart(holdingRecordsAfter time: Int64) -> Int64 {
        let (start, overflow) = time.subtractingReportingOverflow(maximumSpan)
        return overflow ? .min : start
    }

    private static let modelChanged: UInt8 = 1
    private static let instanceChanged: UInt8 = 2
    private static let replicaChanged: UInt8 = 4

    /// The blob of a run (its first record's timestamp goes into the row's columns).
    static func encode(_ run: ArraySlice<Record>) -> [UInt8] {
        guard let first = run.first else { return [] }
        // A flags byte and six varints of at most ten bytes per record.
        return [UInt8](unsafeUninitializedCapacity: run.count * 61) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            var model = 0, instance = 0
            var time = first.timestamp.time, replica = first.timestamp.replica
            for record in run {
                let path = record.path, timestamp = record.timestamp
                var flags: UInt8 = 0
                if path.model != model { flags |= modelChanged }
                if path.instance != instance { flags |= instanceChanged }
                if timestamp.replica != replica { flags |= replicaChanged }
                base[count] = flags
                count += 1
                if path.model != model { count = putVarint(UInt64(bitPattern: Int64(path.model)), at: base, count) }
                if path.instance != instance { count = putVarint(UInt64(bitPattern: Int64(path.instance)), at: base, count) }
                if timestamp.replica != replica { count = putVarint(UInt64(timestamp.replica), at: base, count) }
                count = putVarint(UInt64(bitPattern: Int64(path.property)), at: base, count)
                count = putVarint(UInt64(bitPattern: timestamp.time &- time), at: base, count)
                count = putVarint(UInt64(timestamp.counter), at: base, count)
                (model, instance, time, replica) = (path.model, path.instance, timestamp.time, timestamp.replica)
            }
        }
    }

    /// The records of a run's blob; `nil` when the bytes are not a run.
    static func decode(_ bytes: UnsafeRawBufferPointer, firstTime: Int64, firstReplica: UInt32) -> [Record]? {
        var records: [Record] = []
        var offset = 0
        var model: UInt64 = 0, instance: UInt64 = 0, replica = UInt64(firstReplica)
        var time = firstTime
        while offset < bytes.count {
            let flags = bytes[offset]
            offset += 1
            guard flags & ~(modelChanged | instanceChanged | replicaChanged) == 0 else { return nil }
            if flags & modelChanged != 0 {
                guard let read = readVarint(bytes, &offset) else { return nil }
                model = read
            }
            if flags & instanceChanged != 0 {
                guard let read = readVarint(bytes, &offset) else { return nil }
                instance = read
            }
            if flags & replicaChanged != 0 {
                guard let read = readVarint(bytes, &offset) else { return nil }
                replica = read
            }
            guard let property = readVarint(bytes, &offset), let delta = readVarint(bytes, &offset),
                let counter = readVarint(bytes, &offset),
                let counter32 = UInt32(exactly: counter), let replica32 = UInt32(exactly: replica)
            else { return nil }
            time = time &+ Int64(bitPattern: delta)
            records.append(Record(path: path(model, instance, property), timestamp: Pathbase.Timestamp(time: time, counter: counter32, replica: replica32)))
        }
        return records
    }

    /// The records of a format 7 run's blob (each record whole); `nil` when the bytes are
    /// not one. Read once, when a format 7 file is migrated.
    static func decodeFormat7(_ bytes: UnsafeRawBufferPointer, firstTime: Int64) -> [Record]? {
        var records: [Record] = []
        var offset = 0
        while offset < bytes.count {
            guard let model = readVarint(bytes, &offset), let instance = readVarint(bytes, &offset),
                let property = readVarint(bytes, &offset), let delta = readVarint(bytes, &offset),
                let counter = readVarint(bytes, &offset), let replica = readVarint(bytes, &offset),
                let counter32 = UInt32(exactly: counter), let replica32 = UInt32(exactly: replica)
            else { return nil }
            let timestamp = Pathbase.Timestamp(time: firstTime &+ Int64(bitPattern: delta), counter: counter32, replica: replica32)
            records.append(Record(path: path(model, instance, property), timestamp: timestamp))
        }
        return records
    }

    /// The path of a record's varints (bit patterns of its keys).
    private static func path(_ model: UInt64, _ instance: UInt64, _ property: UInt64) -> Path {
        Path(model: Int(Int64(bitPattern: model)), instance: Int(Int64(bitPattern: instance)), property: Int(Int64(bitPattern: property)))
    }

    /// Writes a varint at `offset`; the offset after it.
    @inline(__always)
    private static func putVarint(_ value: UInt64, at base: UnsafeMutablePointer<UInt8>, _ offset: Int) -> Int {
        var value = value
        var offset = offset
        while value >= 0x80 {
            base[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            offset += 1
            value >>= 7
        }
        base[offset] = UInt8(value)
        return offset + 1
    }

    private static func readVarint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
