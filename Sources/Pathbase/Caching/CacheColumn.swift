/// The cached values of one property of one model, for ``MaximumCountCache``.
///
/// Laid out like the in-memory database's `ValueColumn`: an ``IntTable`` maps each instance
/// to a slot code, and values sit unboxed in an array typed by the first value stored
/// (`TypedCacheColumn<Value>`); values of another type are kept boxed in `others`. Unlike a
/// database column, entries come and go: removing one moves the last value of its array
/// into the hole, so the arrays stay dense and an evicted value is released at once.
///
/// A slot code is a ``ValueSlot``'s. `marks[code]` holds the entry's position in the cache's clock ring, shifted left by one,
/// with the low bit set when the entry was used since the clock hand last passed it.
///
/// The generic subclass keeps its values behind a ``LockedState`` pointer, whose layout does
/// not depend on the value type: reading a value then needs no generic metadata lookup.
/// Only touched while the owning cache holds its lock.
class CacheColumn {

    struct Storage {
        var slots = IntTable()
        var marks = ContiguousArray<Int>()
        /// The instance whose value sits in each typed slot.
        var typedOwners = ContiguousArray<InstanceKey>()
        var others = ContiguousArray<any DatabaseValue>()
        /// The instance whose value sits in each slot of `others`.
        var otherOwners = ContiguousArray<InstanceKey>()
    }

    /// This column's index in the cache's column directory, as recorded in the clock ring.
    final let index: Int

    private let storage = LockedState(Storage())

    init(index: Int) {
        self.index = index
    }

    deinit { storage.free() }

    final var state: Storage {
        unsafeAddress { UnsafePointer(storage.pointer) }
        unsafeMutableAddress { storage.pointer }
    }

    // MARK: Entries

    /// Returns the cached value of an instance if it is a `V`, and marks the entry used.
    final func value<V: DatabaseValue>(of instance: InstanceKey, as type: V.Type) -> V? {
        guard let code = state.slots[instance] else { return nil }
        state.marks[code] |= 1
        return value(atCode: code, as: type)
    }

    /// The slot code of an instance's value if it is stored unboxed as exactly a `V`, after
    /// marking the entry used; `nil` otherwise.
    ///
    /// With ``value(atCode:as:)`` this is the hit path of ``MaximumCountCache``: deciding
    /// hit or miss without a `V?` temporary, which unspecialized generic code would pay for
    /// with a metadata lookup on every read.
    func exactCode<V: DatabaseValue>(of instance: InstanceKey, as type: V.Type) -> Int? {
        nil
    }

    /// The value in a slot, if it is a `V`.
    func value<V: DatabaseValue>(atCode code: Int, as type: V.Type) -> V? {
        let slot = ValueSlot(code: code)
        return slot.isUnboxed ? nil : castStoredValue(state.others[slot.index], as: V.self)
    }

    /// Replaces the value of a cached instance and marks it used; returns `false` (and
    /// stores nothing) if the instance is not cached.
    final func replace<V: DatabaseValue>(_ value: V, for instance: InstanceKey) -> Bool {
        guard let code = state.slots[instance] else { return false }
        if overwrite(code, with: value) {
            state.marks[code] |= 1
        } else {
            // The value belongs in the other array (its type changed): move the entry.
            let newCode = allocateSlot(for: value, of: instance)
            setMark(state.marks[code] | 1, for: newCode)
            state.slots.set(newCode, for: instance)
            freeSlot(code)
        }
        return true
    }

    /// Caches the value of an instance that is not cached yet, at a clock ring position.
    final func insert<V: DatabaseValue>(_ value: V, for instance: InstanceKey, position: Int) {
        let code = allocateSlot(for: value, of: instance)
        setMark(position << 1, for: code)
        state.slots.set(code, for: instance)
    }

    /// Forgets an instance's value; returns its clock ring position, or `nil` if it was not cached.
    @discardableResult
    final func remove(_ instance: InstanceKey) -> Int? {
        guard let code = state.slots.remove(instance) else { return nil }
        let position = state.marks[code] >> 1
        freeSlot(code)
        return position
    }

    /// Whether an instance's entry was used since the clock hand last passed; clears the mark.
    final func takeUse(of instance: InstanceKey) -> Bool {
        guard let code = state.slots[instance] else { return false }
        let mark = state.marks[code]
        state.marks[code] = mark & ~1
        return mark & 1 == 1
    }

    // MARK: Slots

    /// Stores `value` in slot `code` and returns `true` if the slot's array holds its type.
    func overwrite<V: DatabaseValue>(_ code: Int, with value: V) -> Bool {
        let slot = ValueSlot(code: code)
        guard !slot.isUnboxed else { return false }
        state.others[slot.index] = value
        return true
    }

    /// Appends a value to the array holding its type and returns the new slot's code.
    func allocateSlot<V: DatabaseValue>(for value: V, of instance: InstanceKey) -> Int {
        state.others.append(value)
        state.otherOwners.append(instance)
        return ValueSlot.boxed(state.others.count - 1).code
    }

    /// Releases the value in a slot (already unmapped from its instance) by moving the last
    /// value of the same array into it.
    func freeSlot(_ code: Int) {
        let index = ValueSlot(code: code).index
        let last = state.others.count - 1
        if index != last {
            state.others[index] = state.others[last]
            moveOwner(from: ValueSlot.boxed(last).code, to: code, owner: state.otherOwners[last])
            state.otherOwners[index] = state.otherOwners[last]
        }
        state.others.removeLast()
        state.otherOwners.removeLast()
    }

    /// Points the instance whose value moved from slot `old` to slot `new` at its new slot.
    final func moveOwner(from old: Int, to new: Int, owner: InstanceKey) {
        state.slots.set(new, for: owner)
        state.marks[new] = state.marks[old]
    }

    private func setMark(_ mark: Int, for code: Int) {
        while state.marks.count <= code { state.marks.append(0) }
        state.marks[code] = mark
    }
}

/// A ``CacheColumn`` keeping the values of its first stored type unboxed.
final class TypedCacheColumn<Value: DatabaseValue>: CacheColumn {

    private let unboxed = UnboxedValues<Value>()

    deinit { unboxed.free() }

    override func exactCode<V: DatabaseValue>(of instance: InstanceKey, as type: V.Type) -> Int? {
        guard V.self == Value.self, let code = state.slots[instance], ValueSlot(code: code).isUnboxed else { return nil }
        state.marks[code] |= 1
        return code
    }

    override func value<V: DatabaseValue>(atCode code: Int, as type: V.Type) -> V? {
        let slot = ValueSlot(code: code)
        return slot.isUnboxed ? unboxed.value(at: slot.index, as: V.self) : super.value(atCode: code, as: type)
    }

    override func overwrite<V: DatabaseValue>(_ code: Int, with value: V) -> Bool {
        let slot = ValueSlot(code: code)
        guard let typed = UnboxedValues<Value>.unboxed(value) else { return slot.isUnboxed ? false : super.overwrite(code, with: value) }
        guard slot.isUnboxed else { return false }
        unboxed.values[slot.index] = typed
        return true
    }

    override func allocateSlot<V: DatabaseValue>(for value: V, of instance: InstanceKey) -> Int {
        guard let typed = UnboxedValues<Value>.unboxed(value) else { return super.allocateSlot(for: value, of: instance) }
        unboxed.values.append(typed)
        state.typedOwners.append(instance)
        return ValueSlot.unboxed(unboxed.values.count - 1).code
    }

    override func freeSlot(_ code: Int) {
        let slot = ValueSlot(code: code)
        guard slot.isUnboxed else { return super.freeSlot(code) }
        let last = unboxed.values.count - 1
        if slot.index != last {
            unboxed.values[slot.index] = unboxed.values[last]
            moveOwner(from: ValueSlot.unboxed(last).code, to: code, owner: state.typedOwners[last])
            state.typedOwners[slot.index] = state.typedOwners[last]
        }
        unboxed.values.removeLast()
        state.typedOwners.removeLast()
    }
}
