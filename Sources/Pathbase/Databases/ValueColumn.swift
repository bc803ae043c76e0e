/// The current values of one property of one model, for ``InMemoryDatabase``.
///
/// An ``IntTable`` maps instance ids to value slots; values sit unboxed in a typed array
/// (`TypedValueColumn<Value>`), typed by the first value written. A value of another type
/// (after a property changed its type) is kept boxed in `others`, so nothing stored is ever
/// lost or converted. A slot left behind when an instance's value changes type is reused by
/// the next value that needs one, so a path changing type back and forth uses two slots at
/// most. Keeping the generic part to one array access avoids generic metadata
/// lookups and unspecialized dictionary code on the hot path.
class ValueColumn {

    private let slotStorage = LockedState(IntTable())
    private let otherStorage = LockedState(ContiguousArray<any DatabaseValue>())

    deinit {
        slotStorage.free()
        otherStorage.free()
    }

    /// Slot of each instance's value: typed index × 2, or index in `others` × 2 + 1.
    final var slots: IntTable {
        unsafeAddress { UnsafePointer(slotStorage.pointer) }
        unsafeMutableAddress { slotStorage.pointer }
    }

    /// Values whose type differs from the column's value type.
    final var others: ContiguousArray<any DatabaseValue> {
        unsafeAddress { UnsafePointer(otherStorage.pointer) }
        unsafeMutableAddress { otherStorage.pointer }
    }

    /// Indexes in `others` that no instance uses any more.
    private final var freeOthers: [Int] = []

    /// The number of value slots held, used or free (for tests: it must not grow while the
    /// number of instances does not).
    var slotCount: Int { others.count }

    /// Releases an instance's typed slot when its value moves to `others`.
    func releaseTypedSlot(_ index: Int) {}

    /// Releases an instance's slot in `others` when its value moves to the typed values.
    final func releaseOtherSlot(_ index: Int) {
        others[index] = NoValue() // lets go of the old value now
        freeOthers.append(index)
    }

    func get<V: DatabaseValue>(_ instance: InstanceKey, as type: V.Type) -> V? {
        guard let slot = slots[instance], slot & 1 == 1 else { return nil }
        return castStoredValue(others[slot >> 1], as: V.self)
    }

    func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        setOther(value, for: instance)
    }

    /// Calls `body` with every stored value.
    func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        slots.forEach { instance, slot in
            if slot & 1 == 1 { body(instance, others[slot >> 1]) }
        }
    }

    /// Calls `body` with every stored value of type `V`.
    func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        forEachValue { instance, value in
            if let value = value as? V { body(instance, value) }
        }
    }

    final func setOther(_ value: any DatabaseValue, for instance: InstanceKey) {
        let slot = slots[instance]
        if let slot, slot & 1 == 1 {
            others[slot >> 1] = value
            return
        }
        if let slot { releaseTypedSlot(slot >> 1) }
        if let free = freeOthers.popLast() {
            others[free] = value
            slots.set(free << 1 | 1, for: instance)
        } else {
            slots.set(others.count << 1 | 1, for: instance)
            others.append(value)
        }
    }
}

final class TypedValueColumn<Value: DatabaseValue>: ValueColumn {

    private let valueStorage = LockedState(ContiguousArray<Value>())

    deinit { valueStorage.free() }

    private var values: ContiguousArray<Value> {
        unsafeAddress { UnsafePointer(valueStorage.pointer) }
        unsafeMutableAddress { valueStorage.pointer }
    }

    /// Indexes in `values` that no instance uses any more.
    private var freeValues: [Int] = []

    override var slotCount: Int { super.slotCount + values.count }

    override func releaseTypedSlot(_ index: Int) {
        freeValues.append(index)
    }

    override func get<V: DatabaseValue>(_ instance: InstanceKey, as type: V.Type) -> V? {
        guard let slot = slots[instance] else { return nil }
        if slot & 1 == 1 { return castStoredValue(others[slot >> 1], as: V.self) }
        // Same type: reinterpreting is exact and needs no runtime cast.
        return V.self == Value.self ? unsafeBitCast(values[slot >> 1], to: V.self) : castStoredValue(values[slot >> 1], as: V.self)
    }

    override func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        guard V.self == Value.self else {
            setOther(value, for: instance)
            return
        }
        let typed = unsafeBitCast(value, to: Value.self)
        let slot = slots[instance]
        if let slot, slot & 1 == 0 {
            values[slot >> 1] = typed
            return
        }
        if let slot { releaseOtherSlot(slot >> 1) }
        if let free = freeValues.popLast() {
            values[free] = typed
            slots.set(free << 1, for: instance)
        } else {
            slots.set(values.count << 1, for: instance)
            values.append(typed)
        }
    }

    override func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        slots.forEach { instance, slot in
            body(instance, slot & 1 == 1 ? others[slot >> 1] : values[slot >> 1])
        }
    }

    override func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        guard V.self == Value.self else { return super.forEach(as: type, body) }
        slots.forEach { instance, slot in
            if slot & 1 == 0 {
                body(instance, unsafeBitCast(values[slot >> 1], to: V.self))
            } else if let value = others[slot >> 1] as? V {
                body(instance, value)
            }
        }
    }
}
