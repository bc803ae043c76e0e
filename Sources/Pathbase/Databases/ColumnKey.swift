/// Identifies the column holding one property of one model in the in-memory databases.
struct ColumnKey: Hashable {
    let model: ModelKey
    let property: PropertyKey

    @inline(__always)
    init(_ path: Path) {
        model = path.model
        property = path.property
    }

    init(model: ModelKey, property: PropertyKey) {
        self.model = model
        self.property = property
    }
}
