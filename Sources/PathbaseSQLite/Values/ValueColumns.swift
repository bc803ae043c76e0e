import Foundation

/// The columns of a stored row that decoding a value reads: a prepared statement's current
/// row, or an entry of an instance body (``BodyEntryColumns``). Columns are 0-based, as in SQLite, and
/// read with SQLite's conversions (NULL reads as 0, 0.0, "" or empty bytes).
protocol ValueColumns {
    func int64(at column: Int32) -> Int64
    func double(at column: Int32) -> Double
    func isNull(at column: Int32) -> Bool
    func string(at column: Int32) -> String
    func data(at column: Int32) -> Data
    /// Calls `body` with the column's bytes, valid only during the call.
    func withBytes<Result>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension Statement: ValueColumns {}
