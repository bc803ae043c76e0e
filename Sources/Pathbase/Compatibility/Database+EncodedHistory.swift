import Foundation

extension HistoryDatabase {

    /// StateModel's name for ``exportRecords(after:)``: the records written after a date,
    /// as data another database takes with ``Database/importRecords(from:)``.
    ///
    /// ```swift
    /// let data = try database.getEncodedHistory(until: lastTransfer)
    /// other.insert(records: data)
    /// ```
    ///
    /// Unlike StateModel it throws (a value whose encoding fails) instead of stopping the
    /// program, and writes a ``RecordArchive`` document, which keeps each value's type and
    /// the records' hybrid logical clock timestamps.
    @available(*, deprecated, message: "Use exportRecords(after:), which takes a Timestamp: try database.exportRecords(after: Timestamp(latestAt: date))")
    public func getEncodedHistory(until date: Date = .distantPast) throws -> Data {
        try exportRecords(after: date == .distantPast ? nil : Timestamp(latestAt: date))
    }
}

extension Database {

    /// StateModel's name for ``importRecords(from:)``: stores the records of a
    /// ``RecordArchive`` document, or of history StateModel wrote with `getEncodedHistory`,
    /// and returns whether it could.
    ///
    /// ```swift
    /// let inserted = database.insert(records: data)
    /// ```
    ///
    /// `false` means nothing was stored: the data was malformed, or the database failed
    /// while writing its batch. ``importRecords(from:)`` throws the reason instead.
    @available(*, deprecated, message: "Use importRecords(from:), which throws a RecordArchiveError that says why nothing was stored")
    @discardableResult
    public func insert(records: Data) -> Bool {
        do {
            try importRecords(from: records)
            return true
        } catch {
            return false
        }
    }
}
