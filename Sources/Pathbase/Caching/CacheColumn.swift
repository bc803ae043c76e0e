/// The cached values of one property of one model, for ``MaximumCountCache``.
///
/// Laid out like the in-memory database's `ValueColumn`: an ``IntTable`` maps each instance
/// to a slot code, and values sit unboxed in a typed array (`TypedCacheColumn<Value>`), typed
/// by the first value stored; values of another type are kept boxed in `others`. Unlike a
/// database column, entries come and go, so freed slots are recycled.
///
/// A slot code is `index << 1` for the typed array and `index << 1 | 1` for `others`.
/// `marks[code]` holds the entry's position in the cache's clock ring, shifted left by one,
/// with the low bit set when the entry was used since the clock hand last passed it.
///
/// Only touched while the owning cache holds its lock.
class CacheColumn {

    struct Storage {
        var slots = IntTable()
        var marks = ContiguousArray<Int>()
        var others = ContiguousArray<(any DatabaseValue)?>()
        var freeOthers: [Int] = []
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
    func value<V: DatabaseValue>(of instance: InstanceKey, as type: V.Type) -> V? {
        guard let code = state.slots[instance] else { return nil }
        state.marks[code] |= 1
        return code & 1 == 1 ? state.others[code >> 1].flatMap { $0 as? V } : nil
    }

    /// Replaces the value of a cached instance and marks it used; returns `false` (and
    /// stores nothing) if the instance is not cached.
    final func replace<V: DatabaseValue>(_ value: V, for instance: InstanceKey) -> Bool {
        guard let code = state.slots[instance] else { return false }
        let newCode = overwrite(code, with: value)
        if newCode != code {
            // The value's type changed between typed storage and `others`: move the entry.
            setMark(state.marks[code] | 1, for: newCode)
            freeSlot(code)
            state.slots.set(newCode, for: instance)
        } else {
            state.marks[code] |= 1
        }
        return true
    }

    /// Caches the value of an instance that is not cached yet, at a clock ring position.
    final func insert<V: DatabaseValue>(_ value: V, for instance: InstanceKey, position: Int) {
        let code = allocateSlot(for: value)
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

    /// Stores `value` in slot `code` if the slot can hold it and returns `code`; otherwise
    /// stores it in a new slot and returns that slot's code (the caller frees `code`).
    func overwrite<V: DatabaseValue>(_ code: Int, with value: V) -> Int {
        guard code & 1 == 1 else { return allocateSlot(for: value) }
        state.others[code >> 1] = value
        return code
    }

    /// Stores a value in a free slot and returns its code.
    func allocateSlot<V: DatabaseValue>(for value: V) -> Int {
        if let index = state.freeOthers.popLast() {
            state.others[index] = value
            return index << 1 | 1
        }
        state.others.append(value)
        return (state.others.count - 1) << 1 | 1
    }

    /// Releases the value in a slot and makes the slot reusable.
    func freeSlot(_ code: Int) {
        state.others[code >> 1] = nil
        state.freeOthers.append(code >> 1)
    }

    private func setMark(_ mark: Int, for code: Int) {
        while state.marks.count <= code { state.marks.append(0) }
        state.marks[code] = mark
    }
}

/// A ``CacheColumn`` keeping the values of its first stored type unboxed.
final class TypedCacheColumn<Value: DatabaseValue>: CacheColumn {

    struct TypedStorage {
        var values = ContiguousArray<Value?>()
        var free: [Int] = []
    }

    private let typedStorage = LockedState(TypedStorage())

    deinit { typedStorage.free() }

    private var typed: TypedStorage {
        unsafeAddress { UnsafePointer(typedStorage.pointer) }
        unsafeMutableAddress { typedStorage.pointer }
    }

    override func value<V: DatabaseValue>(of instance: InstanceKey, as type: V.Type) -> V? {
        guard let code = state.slots[instance] else { return nil }
        state.marks[code] |= 1
        if code & 1 == 1 { return state.others[code >> 1].flatMap { $0 as? V } }
        // Same type: reinterpreting is exact and needs no runtime cast.
        if V.self == Value.self { return unsafeBitCast(typed.values[code >> 1], to: V?.self) }
        return typed.values[code >> 1].flatMap { $0 as? V }
    }

    override func overwrite<V: DatabaseValue>(_ code: Int, with value: V) -> Int {
        let isTypedSlot = code & 1 == 0
        guard V.self == Value.self else {
            // Another type belongs in `others`.
            return isTypedSlot ? allocateSlot(for: value) : super.overwrite(code, with: value)
        }
        guard isTypedSlot else { return allocateSlot(for: value) }
        typed.values[code >> 1] = unsafeBitCast(value, to: Value.self)
        return code
    }

    override func allocateSlot<V: DatabaseValue>(for value: V) -> Int {
        guard V.self == Value.self else { return super.allocateSlot(for: value) }
        let typedValue = unsafeBitCast(value, to: Value.self)
        if let index = typed.free.popLast() {
            typed.values[index] = typedValue
            return index << 1
        }
        typed.values.append(typedValue)
        return (typed.values.count - 1) << 1
    }

    override func freeSlot(_ code: Int) {
        guard code & 1 == 0 else { return super.freeSlot(code) }
        typed.values[code >> 1] = nil
        typed.free.append(code >> 1)
    }
}
