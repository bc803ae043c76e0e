/// Finds the column of a (model, property) pair: an ``IntTable`` lookup on the packed ids,
/// with a dictionary for the rare ids beyond 32 bits.
struct ColumnDirectory<Column: AnyObject> {

    private var table = IntTable()
    private var wideKeys: [ModelProperty: Int] = [:]
    private(set) var entries: [(key: ModelProperty, column: Column)] = []

    @inline(__always)
    subscript(key: ModelProperty) -> Column? {
        let index = key.packed.map { table[$0] } ?? wideKeys[key]
        return index.map { entries[$0].column }
    }

    mutating func add(_ column: Column, for key: ModelProperty) {
        if let packed = key.packed {
            table.set(entries.count, for: packed)
        } else {
            wideKeys[key] = entries.count
        }
        entries.append((key, column))
    }
}
