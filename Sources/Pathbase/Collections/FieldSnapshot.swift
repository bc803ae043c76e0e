/// The fields of a struct as last fetched or saved, by property: the base that `save`
/// compares with.
///
/// A list rather than a dictionary: structs have few fields, and fetching many structs made
/// hashing every key (twice, to record and to look up) a sixth of the fetch. Recording
/// appends (decoding records each field once, in the struct's order; searching first cost
/// a tenth of a fetch), and a lookup takes the last value recorded for its property. By
/// property key rather than coding key: no string to retain and release per field.
///
/// The fields of the structs of one fetch or save share one ``FieldSnapshotStorage``: an
/// allocation per struct, and freeing it when the struct's base was dropped, cost a quarter
/// of fetching 10^4 structs.
struct FieldSnapshot {

    private let storage: FieldSnapshotStorage
    /// Where this snapshot's fields are in the storage.
    private var start: Int
    private var end: Int

    /// An empty snapshot that records its fields into `storage`, after those of the
    /// snapshots recorded there before.
    init(in storage: FieldSnapshotStorage) {
        self.storage = storage
        start = storage.fields.count
        end = start
    }

    /// The value of `property`, if it was recorded: the last one recorded.
    subscript(property: PropertyKey) -> (any DatabaseValue)? {
        var index = end
        while index > start {
            index -= 1
            if storage.fields[index].property == property { return storage.fields[index].value }
        }
        return nil
    }

    /// Records the value of `property`; it replaces an earlier one.
    mutating func record(_ value: any DatabaseValue, for property: PropertyKey) {
        if end != storage.fields.count {
            // Another snapshot recorded into the storage since this one began: this one's
            // fields move after its, so that they stay together.
            let moved = start ..< end
            start = storage.fields.count
            storage.fields.append(contentsOf: storage.fields[moved])
            end = storage.fields.count
        }
        storage.fields.append((property, value))
        end += 1
    }
}

/// The fields of the structs of one fetch or save, one after another (see ``FieldSnapshot``).
/// Appended to while they are decoded or saved, then only read.
final class FieldSnapshotStorage: @unchecked Sendable {
    // @unchecked: appended to by the one fetch or save that made it, before its snapshots
    // are shared; read only after. For the same reason no dynamic exclusivity checks,
    // which cost more than the appends.
    @exclusivity(unchecked) fileprivate var fields: [(property: PropertyKey, value: any DatabaseValue)] = []

    /// Makes room for `count` more fields.
    func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(fields.count + count)
    }
}
