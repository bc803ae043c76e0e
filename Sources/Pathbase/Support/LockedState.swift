/// Heap storage for state that is only touched while its owner holds a ``Lock``.
///
/// Stored `var`s of classes pay a dynamic exclusivity check on every access (about 15% of
/// an in-memory get or set). The databases already serialize access with their lock, so
/// their hot state lives behind a pointer, exposed through addressors, which Swift does
/// not check. The owner calls ``free()`` in its `deinit`.
struct LockedState<State>: @unchecked Sendable {
    // @unchecked: its owner touches the state only while holding its lock, and frees it in `deinit`.

    let pointer: UnsafeMutablePointer<State>

    init(_ initial: State) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: initial)
    }

    func free() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
