/// The fields of a struct as last fetched or saved, by coding key: the base that `save`
/// compares with.
///
/// A list rather than a dictionary: structs have few fields, and fetching many structs made
/// hashing every key (twice, to record and to look up) a sixth of the fetch. Recording
/// appends (decoding records each field once, in the struct's order; searching first cost
/// a tenth of a fetch), and a lookup takes the last value recorded for its key.
struct FieldSnapshot {

    private var fields: [(key: String, value: any DatabaseValue)] = []

    init(capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// The value of `key`, if it was recorded: the last one recorded.
    subscript(key: String) -> (any DatabaseValue)? {
        fields.last { $0.key == key }?.value
    }

    /// Records the value of `key`; it replaces an earlier one.
    mutating func record(_ value: any DatabaseValue, for key: String) {
        fields.append((key, value))
    }
}
