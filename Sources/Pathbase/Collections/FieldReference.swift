/// A top-level field named by a coding key string, for queries written NoDB-style.
///
/// ```swift
/// let adults = try users.fetch(where: FieldKey("age") >= 18, sortedBy: [.ascending(FieldKey("name"))])
/// ```
///
/// A key that is not a stored property of the struct makes the query throw
/// ``CollectionError/unknownField(collection:key:)``. Key strings are property names, which
/// synthesized `Codable` uses as coding keys.
public struct FieldKey<Element>: Sendable {

    /// The coding key.
    public let key: String

    /// Names a field by its coding key.
    public init(_ key: String) {
        self.key = key
    }
}

/// How a query reaches one field: its coding key (for the database), and how to read it
/// from a struct (for evaluating in memory).
struct FieldReference<Element> {

    /// The coding key; `nil` for a key path that is not a top-level stored property
    /// (evaluated in memory only).
    let key: String?

    /// Why the field can't be queried at all (an unknown string key).
    let problem: CollectionError?

    /// The field's value in a struct; `nil` for a `nil` optional.
    let read: (Element) -> Any?

    init<Value>(_ keyPath: KeyPath<Element, Value>) {
        key = try? FieldKeys.of(Element.self).key(for: keyPath, collection: String(describing: Element.self))
        problem = nil
        read = { $0[keyPath: keyPath] }
    }

    init(_ field: FieldKey<Element>) {
        let key = field.key
        let known = FieldKeys.of(Element.self).contains(key)
        self.key = known ? key : nil
        problem = known ? nil : .unknownField(collection: String(describing: Element.self), key: key)
        read = { element in
            Mirror(reflecting: element).children.first { $0.label == key }.flatMap { Self.unwrapped($0.value) }
        }
    }

    /// The value inside any number of optionals, or `nil`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
