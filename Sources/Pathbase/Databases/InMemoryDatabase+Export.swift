import Foundation

extension InMemoryDatabase {

    /// Exports the current value of every path as a ``RecordArchive`` document, which any
    /// database imports with ``Database/importRecords(from:)``.
    ///
    /// ```swift
    /// let snapshot = try InMemoryDatabase().exportRecords()
    /// try SQLiteDatabase(path: "copy.sqlite").importRecords(from: snapshot)
    /// ```
    ///
    /// This database keeps no times, so every record has ``Timestamp/zero``: older than any
    /// write. Imported into a history database, the values fill paths that have none and never
    /// replace a value written there; imported into a database without history, they are set.
    public func exportRecords() throws -> Data {
        try RecordArchive.encode(currentValues().map { Record(path: $0.path, timestamp: .zero, value: $0.value) })
    }
}
