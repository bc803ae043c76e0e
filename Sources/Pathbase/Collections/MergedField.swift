/// How a collection field with a ``MergePolicy`` is stored: the struct reads and writes its
/// plain value (`Int` for a counter), while the field's path holds the policy's
/// ``MergeableValue`` state, so that records of other replicas merge exactly as those of a
/// `@Model` property with the same policy do.
///
/// A save lands the change the struct made since this collection last read or saved it (its
/// base) on the stored state, as this replica's own write — the rule undo and editing
/// contexts use (``Database/landedValue(_:changedFrom:at:)``): a counter saved as 5 after
/// it was read as 3 adds 2 to whatever other replicas added meanwhile; a union field adds
/// the elements the struct gained and removes only those it dropped.
protocol MergedField: Sendable {

    /// The policy the field merges by.
    var policy: MergePolicy { get }

    /// The type of the state stored at the field's path.
    var stateType: any MergeableValue.Type { get }

    /// Whether `value` is of the field's plain type.
    func accepts(_ value: any DatabaseValue) -> Bool

    /// The plain value of what is stored for `property` of an instance: from `values` when
    /// the database keeps the instance's values, else read at `path`. A plain value stored
    /// before the field had a policy reads as it is.
    func value(of property: PropertyKey, at path: Path, values: (any KeptInstanceValues)?, in database: any Database) -> (any DatabaseValue)?

    /// Writes the change from `base` (the value this replica last read or saved, `nil` when
    /// it has none: then the stored value) to `value` onto the state stored at `path`;
    /// nothing when the state already holds it.
    func write(_ value: any DatabaseValue, changedFrom base: (any DatabaseValue)?, to database: any Database, at path: Path)
}

/// A merged field whose plain values turn into states of one type.
private struct StateField<State: MergeableValue, Plain: DatabaseValue>: MergedField, @unchecked Sendable {
    // @unchecked: the conversions capture nothing (only the generic types they are made for).

    let policy: MergePolicy

    /// The plain value a state reads as.
    let plain: (State) -> Plain

    /// A state holding just a plain value, written by a replica.
    let state: (Plain, UInt32) -> State

    var stateType: any MergeableValue.Type { State.self }

    func accepts(_ value: any DatabaseValue) -> Bool {
        value is Plain
    }

    func value(of property: PropertyKey, at path: Path, values: (any KeptInstanceValues)?, in database: any Database) -> (any DatabaseValue)? {
        let stored: State? = if let values { values.value(of: property) } else { database.get(path) }
        if let stored { return plain(stored) }
        let unmerged: Plain? = if let values { values.value(of: property) } else { database.get(path) }
        return unmerged
    }

    func write(_ value: any DatabaseValue, changedFrom base: (any DatabaseValue)?, to database: any Database, at path: Path) {
        guard let value = value as? Plain else { return }
        let replica = mergeReplica(of: database)
        // Atomic with other threads' saves and pulled states (see AtomicUpdate).
        AtomicUpdate.run(on: database) {
            let old: State? = if let base = base as? Plain { state(base, replica) } else { database.get(path) }
            guard let landed = database.landedValue(state(value, replica), changedFrom: old, at: path) as? State else { return }
            database.set(landed, for: path)
        }
    }
}

/// The merged fields of a struct type, made from the policies a collection is created with.
enum MergedFields {

    /// The merged field for `policy` on the top-level field `key` of `Element`, `nil` for
    /// ``MergePolicy/newestWins``; throws when the struct has no such field or its type does
    /// not fit the policy.
    static func make<Element>(_ policy: MergePolicy, key: String, of element: Element.Type, collection: String) throws(CollectionError) -> (any MergedField)? {
        guard let field = FieldKeys.of(Element.self).fields.first(where: { $0.name == key }) else {
            throw .invalidMergePolicy(collection: collection, key: key, reason: "\(Element.self) has no stored property '\(key)'")
        }
        let type = field.type
        func refuse(_ needed: String) -> CollectionError {
            .invalidMergePolicy(collection: collection, key: key, reason: "the .\(policy) policy needs \(needed), and '\(key)' is \(type)")
        }
        switch policy {
        case .newestWins:
            return nil
        case .counter:
            guard type == Int.self else { throw refuse("an Int field") }
            return StateField<CounterValue, Int>(policy: policy, plain: { $0.value }, state: { CounterValue().adding($0, by: $1) })
        case .max, .min:
            guard let ordered = type as? any (Comparable & Codable).Type else { throw refuse("a Comparable field") }
            return orderedField(ordered, largest: policy == .max)
        case .union:
            guard let elements = type as? any UnionFieldValue.Type else { throw refuse("a Set or an array of Hashable elements") }
            return unionField(elements)
        }
    }

    private static func orderedField<Value: Comparable & Codable>(_ type: Value.Type, largest: Bool) -> any MergedField {
        if largest {
            return StateField<MaximumValue<Value>, Value>(policy: .max, plain: { $0.value }, state: { value, _ in MaximumValue(value) })
        }
        return StateField<MinimumValue<Value>, Value>(policy: .min, plain: { $0.value }, state: { value, _ in MinimumValue(value) })
    }

    private static func unionField<Value: UnionFieldValue>(_ type: Value.Type) -> any MergedField {
        StateField<UnionValue<Value.UnionElement>, Value>(
            policy: .union,
            plain: { Value(unionElements: $0.elements) },
            state: { value, replica in UnionValue().changed(to: value.unionElements, by: replica) ?? UnionValue() }
        )
    }
}

/// A field type a `.union` policy fits: a `Set`, or an array read back without duplicates in
/// the order its elements were first added.
protocol UnionFieldValue: DatabaseValue {
    associatedtype UnionElement: Hashable & Codable

    /// The value holding these elements.
    init(unionElements: [UnionElement])

    /// The elements the value holds.
    var unionElements: [UnionElement] { get }
}

extension Set: UnionFieldValue where Element: Codable {
    init(unionElements: [Element]) { self.init(unionElements) }
    var unionElements: [Element] { Array(self) }
}

extension Array: UnionFieldValue where Element: Hashable & Codable {
    init(unionElements: [Element]) { self = unionElements }
    var unionElements: [Element] { self }
}
