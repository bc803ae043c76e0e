// swift-format-ignore-file
import Pathbase

/// The README's custom database ("Writing your own database"), as printed there, renamed
/// only to stand beside the seed's ``MinimalDatabase``: `values[path].flatMap { $0 as? Value }`.
/// It runs through the whole contract suite as ``DatabaseKind/Backend/readmeMinimal``;
/// `MarkdownSnippetTests` checks that it is still the README's text.
// BEGIN MARKDOWN SNIPPETS
final class ReadmeMinimalDatabase: Database {
    private var values: [Path: Any] = [:]

    func get<Value: DatabaseValue>(_ path: Path) -> Value? {
        values[path].flatMap { $0 as? Value }
    }

    func set<Value: DatabaseValue>(_ value: Value, for path: Path) {
        values[path] = value
    }

    func all<T>(model: ModelKey, where predicate: (InstanceKey, InstanceStatus) -> T?) -> [T] {
        values.compactMap { path, value in
            guard path.model == model, path.property == PropertyKey.instanceId,
                  let status = value as? InstanceStatus else { return nil }
            return predicate(path.instance, status)
        }
    }
}
// END MARKDOWN SNIPPETS
