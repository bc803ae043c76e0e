import Foundation
import Pathbase

/// A history database as a StateModel user wrote one: by date, with StateModel's three
/// requirements only (`get(_:at:)`, `set(_:for:at:)`, `all(model:at:where:)`), keeping
/// every value of every path sorted by the date it was written at.
///
/// Marked deprecated because it uses StateModel's spellings, which Pathbase deprecates;
/// that keeps the test target free of warnings (deprecated code may use deprecated API).
@available(*, deprecated, message: "written the StateModel way, by date")
final class DatedHistoryDatabase: HistoryDatabase {

    private struct Entry {
        let date: Date
        let value: Any
    }

    private var entries: [Path: [Entry]] = [:]

    /// The number of values written, old ones included.
    var writeCount: Int { entries.values.reduce(0) { $0 + $1.count } }

    func get<Value: DatabaseValue>(_ path: Path, at date: Date?) -> Timestamped<Value>? {
        guard let values = entries[path] else { return nil }
        let entry = date.map { date in values.last { $0.date <= date } } ?? values.last
        guard let entry, let value = entry.value as? Value else { return nil }
        return Timestamped(value: value, date: entry.date)
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path, at date: Date?) {
        let date = date ?? Date()
        var values = entries[path] ?? []
        // After every value of the same date, so that the later write wins.
        let index = values.firstIndex { $0.date > date } ?? values.endIndex
        values.insert(Entry(date: date, value: value), at: index)
        entries[path] = values
    }

    func all<T>(model: ModelKey, at date: Date?, where predicate: (InstanceKey, InstanceStatus, Date) -> T?) -> [T] {
        entries.keys.sorted().compactMap { path in
            guard path.model == model, path.property == PropertyKey.instanceId,
                let status: Timestamped<InstanceStatus> = get(path, at: date)
            else { return nil }
            return predicate(path.instance, status.value, status.date)
        }
    }
}
