/// The fields of a struct as last fetched or saved, by coding key: the base that `save`
/// compares with.
///
/// A list searched in order rather than a dictionary: structs have few fields, and fetching
/// many structs made hashing every key (twice, to record and to look up) a sixth of the
/// fetch.
struct FieldSnapshot {

    private var fields: [(key: String, value: any DatabaseValue)] = []

    init(capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// The value of `key`, if it was recorded.
    subscript(key: String) -> (any DatabaseValue)? {
        fields.first { $0.key == key }?.value
    }

    /// Records the value of `key`, replacing an earlier one.
    mutating func record(_ value: any DatabaseValue, for key: String) {
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append((key, value))
        }
    }
}
