/// Identifies the column holding one property of one model in the in-memory databases.
struct ColumnKey: Hashable {
    let model: ModelKey
    let property: PropertyKey

    @inline(__always)
    init(model: ModelKey, property: PropertyKey) {
        self.model = model
        self.property = property
    }

    @inline(__always)
    init(_ path: Path) {
        self.init(model: path.model, property: path.property)
    }

    /// Both ids packed into one `Int` when each fits in 32 bits, as they nearly always do.
    @inline(__always)
    var packed: Int? {
        guard let model = Int32(exactly: model), let property = Int32(exactly: property) else { return nil }
        return Int(model) << 32 | Int(UInt32(bitPattern: property))
    }
}

/// Finds the column of a (model, property) pair: an ``IntTable`` lookup on the packed ids,
/// with a dictionary for the rare ids beyond 32 bits.
struct ColumnDirectory<Column: AnyObject> {

    private var table = IntTable()
    private var wideKeys: [ColumnKey: Int] = [:]
    private(set) var entries: [(key: ColumnKey, column: Column)] = []

    @inline(__always)
    subscript(key: ColumnKey) -> Column? {
        let index = key.packed.map { table[$0] } ?? wideKeys[key]
        return index.map { entries[$0].column }
    }

    mutating func add(_ column: Column, for key: ColumnKey) {
        if let packed = key.packed {
            table.set(entries.count, for: packed)
        } else {
            wideKeys[key] = entries.count
        }
        entries.append((key, column))
    }
}
