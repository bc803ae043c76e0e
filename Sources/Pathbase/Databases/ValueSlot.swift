/// Where a typed column keeps one value: unboxed in the array of the column's value type
/// (the first type stored, ``UnboxedValues``), or boxed among the values of other types.
///
/// The one slot encoding of the in-memory database's, the history's and the cache's columns:
/// `index << 1` for the unboxed array, `index << 1 | 1` for the boxed one, so a slot fits in
/// an ``IntTable`` entry or a record.
struct ValueSlot: Equatable {

    /// The encoded slot.
    let code: Int

    @inline(__always)
    init(code: Int) {
        self.code = code
    }

    /// A slot of the unboxed array.
    @inline(__always)
    static func unboxed(_ index: Int) -> ValueSlot { ValueSlot(code: index << 1) }

    /// A slot of the boxed array.
    @inline(__always)
    static func boxed(_ index: Int) -> ValueSlot { ValueSlot(code: index << 1 | 1) }

    /// Whether the value sits in the unboxed array.
    @inline(__always)
    var isUnboxed: Bool { code & 1 == 0 }

    /// The index in its array.
    @inline(__always)
    var index: Int { code >> 1 }
}

/// The unboxed values of a typed column, behind a ``LockedState`` pointer: its layout does not
/// depend on `Value`, so reaching a value needs no generic metadata lookup. The column frees
/// it in its `deinit` and only touches it under its owner's lock.
struct UnboxedValues<Value: DatabaseValue> {

    private let storage = LockedState(ContiguousArray<Value>())

    /// The values.
    var values: ContiguousArray<Value> {
        unsafeAddress { UnsafePointer(storage.pointer) }
        nonmutating unsafeMutableAddress { storage.pointer }
    }

    func free() {
        storage.free()
    }

    /// The value at `index` as a `V`: reinterpreted when `V` is `Value` (exact, no runtime
    /// cast), otherwise cast as a stored value of another type is.
    @inline(__always)
    func value<V: DatabaseValue>(at index: Int, as type: V.Type) -> V? {
        V.self == Value.self ? unsafeBitCast(values[index], to: V.self) : castStoredValue(values[index], as: V.self)
    }

    /// `value` as a `Value` if `V` is `Value`; `nil` when it belongs among the boxed values.
    @inline(__always)
    static func unboxed<V: DatabaseValue>(_ value: V) -> Value? {
        V.self == Value.self ? unsafeBitCast(value, to: Value.self) : nil
    }
}
