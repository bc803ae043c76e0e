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

extension InMemoryDatabase {

    /// StateModel's name for ``exportRecords()``: the current values as data another
    /// database takes with ``Database/importRecords(from:)``.
    ///
    /// ```swift
    /// let data = try database.getEncodedHistory()
    /// ```
    ///
    /// This database keeps no history and no times (``InMemoryHistoryDatabase`` does), so it
    /// can only export everything: called with a date other than `.distantPast` it throws
    /// ``EncodedHistoryError/noHistory(database:)`` rather than send values it cannot date.
    @available(*, deprecated, message: "Use exportRecords(); for changes after a date use InMemoryHistoryDatabase and exportRecords(after:)")
    public func getEncodedHistory(until date: Date = .distantPast) throws -> Data {
        guard date == .distantPast else {
            throw EncodedHistoryError.noHistory(database: "InMemoryDatabase")
        }
        return try exportRecords()
    }
}

/// Why history could not be exported.
public enum EncodedHistoryError: Error, LocalizedError, Equatable {
    /// The database keeps no history, so it cannot tell which values changed after a date.
    case noHistory(database: String)

    public var errorDescription: String? {
        switch self {
        case .noHistory(let database):
            "\(database) keeps no history, so it cannot export the changes after a date; export everything, or use a history database such as InMemoryHistoryDatabase"
        }
    }
}
