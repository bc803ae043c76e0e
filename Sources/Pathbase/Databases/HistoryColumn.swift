/// Every record of one property of one model, for ``InMemoryHistoryDatabase``.
///
/// Each instance's records are kept sorted by timestamp, so the current value is the last
/// one and the value at a date is a binary search away. Records whose value type differs
/// from the column's go to `others`, kept the same way.
class HistoryColumn {

    final var others: [InstanceKey: [Timestamped<any DatabaseValue>]] = [:]

    func get<V: DatabaseValue>(_ instance: InstanceKey, at timestamp: Timestamp?, as type: V.Type) -> Timestamped<V>? {
        guard let other = others[instance].flatMap({ latest(in: $0, at: timestamp) }) else { return nil }
        return (other.value as? V).map { Timestamped(value: $0, timestamp: other.timestamp) }
    }

    func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey, timestamp: Timestamp) {
        insert(Timestamped(value: value, timestamp: timestamp), into: &others[instance, default: []])
    }

    /// Appends every record newer than `timestamp` (all when `nil`).
    func appendRecords(after timestamp: Timestamp?, model: ModelKey, property: PropertyKey, to records: inout [Record]) {
        for (instance, entries) in others {
            let path = Path(model: model, instance: instance, property: property)
            for entry in entries where timestamp.map({ entry.timestamp > $0 }) ?? true {
                records.append(Record(path: path, timestamp: entry.timestamp, value: entry.value))
            }
        }
    }

    /// Appends every record of one instance.
    func appendRecords(of instance: InstanceKey, path: Path, to records: inout [Record]) {
        for entry in others[instance] ?? [] {
            records.append(Record(path: path, timestamp: entry.timestamp, value: entry.value))
        }
    }

    /// The instances that have records in this column.
    func instances() -> Set<InstanceKey> {
        Set(others.keys)
    }
}

final class TypedHistoryColumn<Value: DatabaseValue>: HistoryColumn {

    private var values: [InstanceKey: [Timestamped<Value>]] = [:]

    override func get<V: DatabaseValue>(_ instance: InstanceKey, at timestamp: Timestamp?, as type: V.Type) -> Timestamped<V>? {
        let typed = values[instance].flatMap { latest(in: $0, at: timestamp) }
        // A newer record of another type hides the typed one.
        if !others.isEmpty, let other = others[instance].flatMap({ latest(in: $0, at: timestamp) }),
           typed.map({ other.timestamp > $0.timestamp }) ?? true {
            return (other.value as? V).map { Timestamped(value: $0, timestamp: other.timestamp) }
        }
        return typed.flatMap(cast)
    }

    private func cast<V>(_ entry: Timestamped<Value>) -> Timestamped<V>? {
        if V.self == Value.self { return unsafeBitCast(entry, to: Timestamped<V>.self) }
        return (entry.value as? V).map { Timestamped(value: $0, timestamp: entry.timestamp) }
    }

    override func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey, timestamp: Timestamp) {
        if V.self == Value.self {
            insert(Timestamped(value: unsafeBitCast(value, to: Value.self), timestamp: timestamp), into: &values[instance, default: []])
        } else {
            super.set(value, for: instance, timestamp: timestamp)
        }
    }

    override func appendRecords(after timestamp: Timestamp?, model: ModelKey, property: PropertyKey, to records: inout [Record]) {
        for (instance, entries) in values {
            let path = Path(model: model, instance: instance, property: property)
            for entry in entries where timestamp.map({ entry.timestamp > $0 }) ?? true {
                records.append(Record(path: path, timestamp: entry.timestamp, value: entry.value))
            }
        }
        super.appendRecords(after: timestamp, model: model, property: property, to: &records)
    }

    override func appendRecords(of instance: InstanceKey, path: Path, to records: inout [Record]) {
        for entry in values[instance] ?? [] {
            records.append(Record(path: path, timestamp: entry.timestamp, value: entry.value))
        }
        super.appendRecords(of: instance, path: path, to: &records)
    }

    override func instances() -> Set<InstanceKey> {
        super.instances().union(values.keys)
    }
}

/// The newest entry at or before `timestamp` (the newest of all when `nil`).
@inline(__always)
private func latest<V>(in entries: [Timestamped<V>], at timestamp: Timestamp?) -> Timestamped<V>? {
    guard let timestamp else { return entries.last }
    if let last = entries.last, last.timestamp <= timestamp { return last }
    // Binary search for the first entry after `timestamp`.
    var low = 0, high = entries.count
    while low < high {
        let middle = (low + high) / 2
        if entries[middle].timestamp <= timestamp { low = middle + 1 } else { high = middle }
    }
    return low == 0 ? nil : entries[low - 1]
}

/// Inserts an entry in timestamp order; an entry with the same timestamp is the same write
/// arriving again and is ignored.
@inline(__always)
private func insert<V>(_ entry: Timestamped<V>, into entries: inout [Timestamped<V>]) {
    guard let last = entries.last, entry.timestamp <= last.timestamp else {
        entries.append(entry)
        return
    }
    var low = 0, high = entries.count
    while low < high {
        let middle = (low + high) / 2
        if entries[middle].timestamp < entry.timestamp { low = middle + 1 } else { high = middle }
    }
    if low < entries.count, entries[low].timestamp == entry.timestamp { return }
    entries.insert(entry, at: low)
}
