import Pathbase

/// The smallest useful custom database: a dictionary from paths to values.
///
/// It is written exactly the way a user would write one by hand (see the "Custom database
/// implementation" section of the documentation), and runs through the same contract suite
/// as the databases Pathbase ships, which shows that the three `Database` requirements are
/// all a backend needs. Not thread-safe, and not `Sendable`, on purpose.
final class MinimalDatabase: Database {

    private var cache: [Path: Any] = [:]

    // MARK: Values

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        cache[path] as? Value
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        cache[path] = value
    }

    // MARK: Instances

    func all<T>(model: ModelKey, where predicate: (_ instance: InstanceKey, _ status: InstanceStatus) -> T?) -> [T] {
        cache.compactMap { path, value -> T? in
            guard path.model == model,
                path.property == PropertyKey.instanceId,
                let status = value as? InstanceStatus
            else {
                return nil
            }
            return predicate(path.instance, status)
        }
    }
}
