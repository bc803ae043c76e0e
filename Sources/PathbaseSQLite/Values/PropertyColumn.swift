import Pathbase

/// One property of one model: the current values of all its instances, as a column of a
/// fixed-schema table would hold them. The key of what is kept per property (value
/// indexes, listing columns, prepared lookups).
struct PropertyColumn: Hashable {
    let model: ModelKey
    let property: PropertyKey
}
