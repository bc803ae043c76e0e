/// A stored marker meaning "no value": a path holding it reads like a path that was never
/// written (the property's default).
///
/// Undo writes it where a path had no value before the undone change, because history
/// databases never delete records. Reading it as any other type gives `nil`:
///
/// ```swift
/// database.set(NoValue(), for: path)
/// let name: String? = database.get(path) // nil
/// ```
public struct NoValue: Codable, Sendable, Hashable {

    /// The marker.
    public init() {}
}
