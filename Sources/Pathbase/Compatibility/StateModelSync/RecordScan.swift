/// Records of a history database after a cursor, in order, filtered, at most `limit`.
///
/// The scan reads the database's records oldest first, in growing chunks of
/// ``HistoryDatabase/records(after:limit:)``, starting just before the cursor's timestamp so
/// that records sharing it are not lost; it skips the records at or before the cursor and
/// keeps the ones `transform` turns into a value. Its ``cursor`` is after the last record it
/// looked at, kept or not, so the next scan starts exactly there.
struct RecordScan<Element> {

    /// The kept values, in record order.
    var elements: [Element] = []

    /// After the last record looked at; the starting cursor if there was none.
    var cursor: SyncCursor?

    /// Whether every record after the starting cursor was looked at.
    var isComplete = true

    init(of database: any HistoryDatabase, after start: SyncCursor?, limit: Int?, transform: (Record) -> Element?) {
        cursor = start
        var chunk = limit.map { Swift.max(128, $0.multipliedReportingOverflow(by: 2).overflow ? .max : $0 * 2) }
        while true {
            let batch = database.records(after: cursor.flatMap(RecordScan.fetchStart), limit: chunk)
            for record in batch where cursor.map({ $0.precedes(record) }) ?? true {
                if let element = transform(record) {
                    if let limit, elements.count >= limit {
                        isComplete = false
                        return
                    }
                    elements.append(element)
                }
                cursor = SyncCursor(after: record)
            }
            guard let size = chunk, batch.count >= size else { return }
            // A full chunk: there may be more. Growing chunks keep the number of reads
            // logarithmic, and get past many records that share the cursor's timestamp.
            chunk = size.multipliedReportingOverflow(by: 2).overflow ? .max : size * 2
        }
    }

    /// The timestamp to ask records after, so that records sharing the cursor's timestamp
    /// but with a later path are included; `nil` asks for all records.
    private static func fetchStart(for cursor: SyncCursor) -> Timestamp? {
        if cursor.path == .last { return cursor.timestamp }
        let t = cursor.timestamp
        if t.replica > 0 { return Timestamp(time: t.time, counter: t.counter, replica: t.replica - 1) }
        if t.counter > 0 { return Timestamp(time: t.time, counter: t.counter - 1, replica: .max) }
        if t.time > .min { return Timestamp(time: t.time - 1, counter: .max, replica: .max) }
        return nil
    }
}
