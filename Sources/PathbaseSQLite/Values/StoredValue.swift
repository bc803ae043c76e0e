import Foundation

/// A value as SQLite stores it, with the ``ValueTag`` that says which Swift type it was.
///
/// Encoding a value once into a `StoredValue` lets one write bind it to both the `records`
/// and the `current_values` statement without encoding it twice.
enum StoredValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension Statement {
    @inline(__always)
    func bind(_ value: StoredValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let integer): bind(integer, at: index)
        case .real(let real): bind(real, at: index)
        case .text(let text): bind(text, at: index)
        case .blob(let blob): bind(blob, at: index)
        }
    }
}
