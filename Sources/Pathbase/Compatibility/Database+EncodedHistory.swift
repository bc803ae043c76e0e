import Foundation

extension HistoryDatabase {

    /// StateModel's name for ``exportRecords(after:)``: the records written after a date,
    /// as data another database takes with ``Database/importRecords(from:)``.
    ///
    /// ```swift
    /// let data = database.getEncodedHistory(until: lastTransfer)
    /// other.insert(records: data)
    /// ```
    ///
    /// It writes a ``RecordArchive`` document, which keeps each value's type and the records'
    /// hybrid logical clock timestamps. Like StateModel's it does not throw: where StateModel
    /// stopped the program on a value it could not encode, it returns empty data, which
    /// ``Database/insert(records:)`` refuses. ``exportRecords(after:)`` throws the reason.
    @available(*, deprecated, message: "Use exportRecords(after:), which takes a Timestamp and throws why it cannot export: try database.exportRecords(after: Timestamp(latestAt: date))")
    public func getEncodedHistory(until date: Date = .distantPast) -> Data {
        (try? exportRecords(after: date == .distantPast ? nil : Timestamp(latestAt: date))) ?? Data()
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

extension InMemoryDatabase {

    /// StateModel's name for ``exportRecords()``: the current values as data another
    /// database takes with ``Database/importRecords(from:)``.
    ///
    /// ```swift
    /// let data = database.getEncodedHistory()
    /// ```
    ///
    /// This database keeps no history and no times (``InMemoryHistoryDatabase`` does), so it
    /// cannot tell which values changed after `date`: it always exports all of them. A value
    /// that cannot be encoded makes it return empty data, which
    /// ``Database/insert(records:)`` refuses; ``exportRecords()`` throws the reason.
    @available(*, deprecated, message: "Use exportRecords(), which throws why it cannot export; for changes after a date use InMemoryHistoryDatabase and exportRecords(after:)")
    public func getEncodedHistory(until date: Date = .distantPast) -> Data {
        (try? exportRecords()) ?? Data()
    }
}
