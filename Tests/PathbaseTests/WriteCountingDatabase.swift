import Pathbase

/// A database that forwards to another one and remembers every path written through it.
///
/// Used to prove that an operation performs no write at all, on any database kind, or reads
/// no whole model (`scans`).
final class WriteCountingDatabase: Database {

    let base: any Database

    /// The paths written so far, in order.
    private(set) var writes: [Path] = []

    /// How many times every instance of a model was listed (`all(model:where:)`).
    private(set) var scans = 0

    init(wrapping base: any Database) {
        self.base = base
    }

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        base.get(path)
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        writes.append(path)
        base.set(value, for: path)
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        scans += 1
        return base.all(model: model, where: predicate)
    }

    /// Forgets the writes seen so far.
    func resetWrites() {
        writes.removeAll()
    }
}
