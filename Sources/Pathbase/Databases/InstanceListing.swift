/// The results of an `all(model:where:)` predicate over a model's instances, in order,
/// without the `nil`s; for the databases' implementations.
///
/// A loop rather than `compactMap`: unspecialized for the caller's `T` (a model type of the
/// app), the standard library's version asked for generic metadata at every element, a
/// quarter of the instructions of listing a model's statuses on SQLite.
package func listing<T>(_ statuses: [(InstanceKey, InstanceStatus)], _ predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
    var results: [T] = []
    results.reserveCapacity(statuses.count)
    for (instance, status) in statuses {
        if let result = predicate(instance, status) { results.append(result) }
    }
    return results
}
