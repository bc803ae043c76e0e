/// One property of one model — a path without its instance: the key of what is kept per
/// property (the in-memory databases' columns, SQLite's value indexes and prepared lookups).
package struct ModelProperty: Hashable, Sendable {
    package let model: ModelKey
    package let property: PropertyKey

    @inline(__always)
    package init(model: ModelKey, property: PropertyKey) {
        self.model = model
        self.property = property
    }

    @inline(__always)
    package init(_ path: Path) {
        self.init(model: path.model, property: path.property)
    }

    /// Both ids packed into one `Int` when each fits in 32 bits, as they nearly always do.
    @inline(__always)
    var packed: Int? {
        guard let model = Int32(exactly: model), let property = Int32(exactly: property) else { return nil }
        return Int(model) << 32 | Int(UInt32(bitPattern: property))
    }
}
