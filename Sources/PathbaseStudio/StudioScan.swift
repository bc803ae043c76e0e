import Pathbase

/// What Studio asks of a property the file has no value index of: a bounded scan of the
/// model's rows (`SQLiteDatabase.scanInstances(of:where:after:window:limit:)`), used by a
/// table's filter and by "referenced by". Studio opens files read-only, so it cannot make
/// the index an app's query would make; scanning a window at a time keeps every page as
/// fast on a model of millions of instances as on a small one, and links to the next window.
enum StudioScan {

    /// The instances one page scans at most: about 40 ms on a 10^6-instance file (`pathbase-bench studio`).
    static let window = 100_000

    /// A property's stored value equals `operand`, stored as `type`.
    static func equality(_ property: PropertyKey, _ type: any QueryableValue.Type, _ operand: QueryOperand) -> StoredPredicate {
        .condition(StoredCondition(propertyId: property, storedAs: type, operation: .equal, operands: [operand], matchesNil: false, matchesDefault: false))
    }
}
