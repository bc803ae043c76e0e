/// The current values of one instance as a database keeps them for the running transaction
/// (see ``QueryPushdownDatabase/keptValues(of:instance:)``): each read finds its value among
/// the instance's, without a lookup of the instance, a lock or a statement per value.
///
/// A class: a collection's decoder holds it for one struct, and the database hands out the
/// same one again once nothing holds it.
package protocol KeptInstanceValues: AnyObject {
    /// The current value of `property`, or `nil` when none is stored or it is not a `Value`
    /// (as `get` answers).
    func value<Value: DatabaseValue>(of property: PropertyKey) -> Value?
}
