import Pathbase

/// The records one flush wrote, as a row of `record_runs` holds them (storage format 7):
/// the first record's timestamp in the row's columns, every record's path and timestamp in
/// one blob, in timestamp order. One row per flush instead of one per record: the per-record
/// rows of `record_times` (a b-tree insert with a uniqueness check each) were a third of a
/// batched save.
///
/// A run spans at most ``maximumSpan`` of time, so that the runs holding records after a
/// timestamp start no earlier than that much before it. Runs of two connections, or of a
/// pull of old records, may overlap in time; ``SQLiteDatabase`` merges them by timestamp,
/// and a record written twice (pulled again) is listed once.
///
/// The blob, per record: model, instance and property (their bit patterns as varints), the
/// time after the first record's (varint), the counter and the replica (varints).
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

    /// The blob of a run (its first record's timestamp goes into the row's columns).
    static func encode(_ run: ArraySlice<Record>) -> [UInt8] {
        guard let first = run.first else { return [] }
        // Six varints of at most ten bytes per record.
        return [UInt8](unsafeUninitializedCapacity: run.count * 60) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            for record in run {
                count = putVarint(UInt64(bitPattern: Int64(record.path.model)), at: base, count)
                count = putVarint(UInt64(bitPattern: Int64(record.path.instance)), at: base, count)
                count = putVarint(UInt64(bitPattern: Int64(record.path.property)), at: base, count)
                count = putVarint(UInt64(bitPattern: record.timestamp.time &- first.timestamp.time), at: base, count)
                count = putVarint(UInt64(record.timestamp.counter), at: base, count)
                count = putVarint(UInt64(record.timestamp.replica), at: base, count)
            }
        }
    }

    /// The records of a run's blob; `nil` when the bytes are not a run.
    static func decode(_ bytes: UnsafeRawBufferPointer, firstTime: Int64) -> [Record]? {
        var records: [Record] = []
        var offset = 0
        while offset < bytes.count {
            guard let model = readVarint(bytes, &offset), let instance = readVarint(bytes, &offset),
                  let property = readVarint(bytes, &offset), let delta = readVarint(bytes, &offset),
                  let counter = readVarint(bytes, &offset), let replica = readVarint(bytes, &offset),
                  let counter32 = UInt32(exactly: counter), let replica32 = UInt32(exactly: replica)
            else { return nil }
            let path = Path(model: Int(Int64(bitPattern: model)), instance: Int(Int64(bitPattern: instance)), property: Int(Int64(bitPattern: property)))
            let timestamp = Pathbase.Timestamp(time: firstTime &+ Int64(bitPattern: delta), counter: counter32, replica: replica32)
            records.append(Record(path: path, timestamp: timestamp))
        }
        return records
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
