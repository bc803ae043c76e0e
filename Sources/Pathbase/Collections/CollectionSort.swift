/// One key of a collection query's order: a field, ascending or descending.
///
/// ```swift
/// let page = try users.fetch(where: .all, sortedBy: [.ascending(\.name), .descending(\.age)], limit: 20)
/// ```
///
/// A `nil` optional sorts before every value (after, descending). Structs that compare
/// equal on every key are in instance key order. A single sort on a non-optional field of a
/// ``QueryableValue`` type runs in the database (SQL on `SQLiteDatabase`); other sorts run
/// on the structs the filter returns.
public struct CollectionSort<Element> {

    /// Whether `lhs` sorts before `rhs` (ascending), `nil` when neither does.
    let compare: (Element, Element) -> Bool?

    /// Whether the order is descending.
    let descending: Bool

    /// The sort as a database runs it, when it can.
    let stored: FieldSort?

    /// Why the sort can't run (an unknown string key).
    let problem: CollectionError?

    /// Ascending by a field.
    ///
    /// ```swift
    /// let sort: CollectionSort<User> = .ascending(\.name)
    /// ```
    public static func ascending<Value: Comparable>(_ keyPath: KeyPath<Element, Value>) -> CollectionSort {
        CollectionSort(keyPath, descending: false)
    }

    /// Descending by a field.
    public static func descending<Value: Comparable>(_ keyPath: KeyPath<Element, Value>) -> CollectionSort {
        CollectionSort(keyPath, descending: true)
    }

    /// Ascending by an optional field, `nil` first.
    public static func ascending<Value: Comparable>(_ keyPath: KeyPath<Element, Value?>) -> CollectionSort {
        CollectionSort(optional: keyPath, descending: false)
    }

    /// Descending by an optional field, `nil` last.
    public static func descending<Value: Comparable>(_ keyPath: KeyPath<Element, Value?>) -> CollectionSort {
        CollectionSort(optional: keyPath, descending: true)
    }

    /// Ascending by a field named by its coding key (values compare as the database does:
    /// numbers by value, strings by Unicode scalars).
    ///
    /// ```swift
    /// let sort: CollectionSort<User> = .ascending(FieldKey("name"))
    /// ```
    public static func ascending(_ field: FieldKey<Element>) -> CollectionSort {
        CollectionSort(field: field, descending: false)
    }

    /// Descending by a field named by its coding key.
    public static func descending(_ field: FieldKey<Element>) -> CollectionSort {
        CollectionSort(field: field, descending: true)
    }

    init<Value: Comparable>(_ keyPath: KeyPath<Element, Value>, descending: Bool) {
        compare = { lhs, rhs in Self.order(lhs[keyPath: keyPath], rhs[keyPath: keyPath]) }
        self.descending = descending
        let key = try? FieldKeys.of(Element.self).key(for: keyPath, collection: String(describing: Element.self))
        stored = key.flatMap { key in (Value.self as? any QueryableValue.Type).map { FieldSort(key: key, valueType: $0) } }
        problem = nil
    }

    init<Value: Comparable>(optional keyPath: KeyPath<Element, Value?>, descending: Bool) {
        compare = { lhs, rhs in
            switch (lhs[keyPath: keyPath], rhs[keyPath: keyPath]) {
            case let (left?, right?): Self.order(left, right)
            case (nil, nil): nil
            case (nil, _): true
            case (_, nil): false
            }
        }
        self.descending = descending
        stored = nil
        problem = nil
    }

    init(field: FieldKey<Element>, descending: Bool) {
        let reference = FieldReference(field)
        compare = { lhs, rhs in
            let left = (reference.read(lhs) as? any QueryableValue)?.queryOperand
            let right = (reference.read(rhs) as? any QueryableValue)?.queryOperand
            switch (left, right) {
            case let (left?, right?): return Self.order(SortOperand(left), SortOperand(right))
            case (nil, nil): return nil
            case (nil, _): return true
            case (_, nil): return false
            }
        }
        self.descending = descending
        stored = nil
        problem = reference.problem
    }

    private static func order<Value: Comparable>(_ lhs: Value, _ rhs: Value) -> Bool? {
        lhs < rhs ? true : rhs < lhs ? false : nil
    }
}

/// A single sort a database can run: a field of a queryable type.
struct FieldSort {
    let key: String
    let valueType: any QueryableValue.Type
}

/// Query operands in the database's order: numbers by value, then strings.
struct SortOperand: Comparable {
    let operand: QueryOperand

    init(_ operand: QueryOperand) {
        self.operand = operand
    }

    private var number: Double? {
        switch operand {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .text: nil
        }
    }

    static func < (lhs: SortOperand, rhs: SortOperand) -> Bool {
        switch (lhs.operand, rhs.operand) {
        case let (.integer(left), .integer(right)): return left < right
        case let (.text(left), .text(right)): return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
        case (.text, _): return false
        case (_, .text): return true
        default: return (lhs.number ?? 0) < (rhs.number ?? 0)
        }
    }
}
