/// The current values of one property of one model, for ``InMemoryDatabase``.
///
/// Values are kept unboxed in a dictionary typed by the first type written to the column
/// (`TypedValueColumn<Value>`); the rare value of another type (after a property changed
/// its type) goes to `others`, so nothing stored is ever lost or converted.
class ValueColumn {

    /// Values whose type differs from the column's value type.
    final var others: [InstanceKey: any DatabaseValue] = [:]

    func get<V: DatabaseValue>(_ instance: InstanceKey, as type: V.Type) -> V? {
        others[instance] as? V
    }

    func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        others[instance] = value
    }

    /// Calls `body` with each stored value of type `V`.
    func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        for (instance, value) in others {
            if let value = value as? V { body(instance, value) }
        }
    }

    /// Calls `body` with every stored value.
    func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        for (instance, value) in others { body(instance, value) }
    }
}

final class TypedValueColumn<Value: DatabaseValue>: ValueColumn {

    private var values: [InstanceKey: Value] = [:]

    override func get<V: DatabaseValue>(_ instance: InstanceKey, as type: V.Type) -> V? {
        if V.self == Value.self, others.isEmpty {
            // Same type: reinterpreting is free and exact.
            return unsafeBitCast(values[instance], to: Optional<V>.self)
        }
        if let other = others[instance] { return other as? V }
        guard let value = values[instance] else { return nil }
        return V.self == Value.self ? unsafeBitCast(value, to: V.self) : value as? V
    }

    override func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        if V.self == Value.self {
            values[instance] = unsafeBitCast(value, to: Value.self)
            if !others.isEmpty { others.removeValue(forKey: instance) }
        } else {
            values.removeValue(forKey: instance)
            others[instance] = value
        }
    }

    override func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        if V.self == Value.self {
            for (instance, value) in values { body(instance, unsafeBitCast(value, to: V.self)) }
        } else {
            for (instance, value) in values {
                if let value = value as? V { body(instance, value) }
            }
        }
        super.forEach(as: type, body)
    }

    override func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        for (instance, value) in values { body(instance, value) }
        super.forEachValue(body)
    }
}
