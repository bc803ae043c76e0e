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

    /// Slot of each instance's value (a ``ValueSlot`` code).
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
        guard let code = slots[instance], case let slot = ValueSlot(code: code), !slot.isUnboxed else { return nil }
        return castStoredValue(others[slot.index], as: V.self)
    }

    func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        setOther(value, for: instance)
    }

    /// Calls `body` with every stored value.
    func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        slots.forEach { instance, code in
            let slot = ValueSlot(code: code)
            if !slot.isUnboxed { body(instance, others[slot.index]) }
        }
    }

    /// Calls `body` with every stored value of type `V`.
    func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        forEachValue { instance, value in
            if let value = value as? V { body(instance, value) }
        }
    }

    final func setOther(_ value: any DatabaseValue, for instance: InstanceKey) {
        let slot = slots[instance].map(ValueSlot.init(code:))
        if let slot, !slot.isUnboxed {
            others[slot.index] = value
            return
        }
        if let slot { releaseTypedSlot(slot.index) }
        if let free = freeOthers.popLast() {
            others[free] = value
            slots.set(ValueSlot.boxed(free).code, for: instance)
        } else {
            slots.set(ValueSlot.boxed(others.count).code, for: instance)
            others.append(value)
        }
    }
}

final class TypedValueColumn<Value: DatabaseValue>: ValueColumn {

    private let unboxed = UnboxedValues<Value>()

    deinit { unboxed.free() }

    /// Indexes in the unboxed values that no instance uses any more.
    private var freeValues: [Int] = []

    override var slotCount: Int { super.slotCount + unboxed.values.count }

    override func releaseTypedSlot(_ index: Int) {
        freeValues.append(index)
    }

    override func get<V: DatabaseValue>(_ instance: InstanceKey, as type: V.Type) -> V? {
        guard let code = slots[instance] else { return nil }
        let slot = ValueSlot(code: code)
        return slot.isUnboxed ? unboxed.value(at: slot.index, as: V.self) : castStoredValue(others[slot.index], as: V.self)
    }

    override func set<V: DatabaseValue>(_ value: V, for instance: InstanceKey) {
        guard let typed = UnboxedValues<Value>.unboxed(value) else {
            setOther(value, for: instance)
            return
        }
        let slot = slots[instance].map(ValueSlot.init(code:))
        if let slot, slot.isUnboxed {
            unboxed.values[slot.index] = typed
            return
        }
        if let slot { releaseOtherSlot(slot.index) }
        if let free = freeValues.popLast() {
            unboxed.values[free] = typed
            slots.set(ValueSlot.unboxed(free).code, for: instance)
        } else {
            slots.set(ValueSlot.unboxed(unboxed.values.count).code, for: instance)
            unboxed.values.append(typed)
        }
    }

    override func forEachValue(_ body: (InstanceKey, any DatabaseValue) -> Void) {
        slots.forEach { instance, code in
            let slot = ValueSlot(code: code)
            body(instance, slot.isUnboxed ? unboxed.values[slot.index] : others[slot.index])
        }
    }

    override func forEach<V: DatabaseValue>(as type: V.Type, _ body: (InstanceKey, V) -> Void) {
        guard V.self == Value.self else { return super.forEach(as: type, body) }
        slots.forEach { instance, code in
            let slot = ValueSlot(code: code)
            if slot.isUnboxed {
                body(instance, unsafeBitCast(unboxed.values[slot.index], to: V.self))
            } else if let value = others[slot.index] as? V {
                body(instance, value)
            }
        }
    }
}
