/// Every record of one property of one model, for ``InMemoryHistoryDatabase``.
///
/// Records are appended to one array of ``RecordEntry`` (timestamp, instance, value slot,
/// link to the same instance's next older record); `heads` maps each instance to its newest
/// record.
/// Each instance's records thus form a chain sorted newest first: the current value is one
/// table lookup away, a past value a short walk; an instance with many records also keeps
/// their indexes in timestamp order (`chains`), so a value at a date is a binary search
/// however long its history. Values sit unboxed in a typed array (`TypedHistoryColumn<Value>`);
/// values of another type are kept boxed in `others`.
///
/// `order` keeps the record indexes chronologically (timestamp, then instance), so that
/// ``InMemoryHistoryDatabase/records(after:limit:)`` reads a page by binary search and merge
/// rather than by sorting the whole history.
class HistoryColumn {

    /// From this many older records on, an instance's records are also kept in `chains`.
    static let indexedDepth: Int32 = 32

    private let headStorage = LockedState(IntTable())
    private let entryStorage = LockedState(ContiguousArray<RecordEntry>())
    private let otherStorage = LockedState(ContiguousArray<any DatabaseValue>())
    private let chainStorage = LockedState([InstanceKey: ContiguousArray<Int>]())
    private let orderStorage = LockedState(ContiguousArray<Int>())
    private let lateStorage = LockedState(ContiguousArray<Int>())

    deinit {
        headStorage.free()
        entryStorage.free()
        otherStorage.free()
        chainStorage.free()
        orderStorage.free()
        lateStorage.free()
    }

    /// Record indexes, chronologically; the records in `late` are not in it yet.
    private final var order: ContiguousArray<Int> {
        unsafeAddress { UnsafePointer(orderStorage.pointer) }
        unsafeMutableAddress { orderStorage.pointer }
    }

    /// Records inserted before the end of `order` (older writes arriving from sync), in
    /// arrival order: merged into `order` at the next read, once, rather than at every insert.
    private final var late: ContiguousArray<Int> {
        unsafeAddress { UnsafePointer(lateStorage.pointer) }
        unsafeMutableAddress { lateStorage.pointer }
    }

    /// The records of each instance with a long history, oldest first.
    private final var chains: [InstanceKey: ContiguousArray<Int>] {
        unsafeAddress { UnsafePointer(chainStorage.pointer) }
        unsafeMutableAddress { chainStorage.pointer }
    }

    /// The newest record of each instance.
    final var heads: IntTable {
        unsafeAddress { UnsafePointer(headStorage.pointer) }
        unsafeMutableAddress { headStorage.pointer }
    }

    final var entries: ContiguousArray<RecordEntry> {
        unsafeAddress { UnsafePointer(entryStorage.pointer) }
        unsafeMutableAddress { entryStorage.pointer }
    }

    /// Values whose type differs from the column's value type.
    final var others: ContiguousArray<any DatabaseValue> {
        unsafeAddress { UnsafePointer(otherStorage.pointer) }
        unsafeMutableAddress { otherStorage.pointer }
    }

    /// The newest record of an instance at or before `timestamp` (the newest of all when `nil`).
    @inline(__always)
    final func record(of instance: InstanceKey, at timestamp: Timestamp?) -> Int? {
        guard var index = heads[instance] else { return nil }
        guard let timestamp, entries[index].timestamp > timestamp else { return index }
        if entries[index].depth >= Self.indexedDepth, let chain = chains[instance] {
            return newest(in: chain, atOrBefore: timestamp).map { chain[$0] }
        }
        while entries[index].timestamp > timestamp {
            index = entries[index].older
            if index < 0 { return nil }
        }
        return index
    }

    /// The position in `chain` (record indexes, oldest first) of the newest record at or
    /// before `timestamp`, by binary search.
    private final func newest(in chain: ContiguousArray<Int>, atOrBefore timestamp: Timestamp) -> Int? {
        let after = firstPosition(in: chain, after: timestamp)
        return after == 0 ? nil : after - 1
    }

    /// The records of an instance, newest first, by walking its chain.
    private final func walk(from head: Int) -> [Int] {
        var indexes: [Int] = []
        var index = head
        while index >= 0 {
            indexes.append(index)
            index = entries[index].older
        }
        return indexes
    }

    /// Inserts a record in timestamp order. A record with the same timestamp is the same
    /// write arriving again and is ignored.
    final func insert<V: DatabaseValue>(_ value: V, for instance: InstanceKey, timestamp: Timestamp) {
        let index = entries.count
        let head = heads[instance]
        if let head, timestamp <= entries[head].timestamp {
            // An older write arriving late: link it between its neighbours.
            if entries[head].timestamp == timestamp { return }
            var newer = head
            var next = entries[head].older
            while next >= 0, entries[next].timestamp > timestamp {
                newer = next
                next = entries[next].older
            }
            if next >= 0, entries[next].timestamp == timestamp { return }
            let depth = next >= 0 ? entries[next].depth + 1 : 0
            entries.append(RecordEntry(timestamp: timestamp, instance: instance, older: next, slot: appendValue(value), depth: depth))
            entries[newer].older = index
            place(index)
            // Every newer record has one more older record now.
            var deeper = head
            while deeper != index {
                entries[deeper].depth += 1
                deeper = entries[deeper].older
            }
            if var chain = chains[instance] {
                chains[instance] = nil
                chain.insert(index, at: (newest(in: chain, atOrBefore: timestamp) ?? -1) + 1)
                chains[instance] = chain
            } else if entries[head].depth >= Self.indexedDepth {
                chains[instance] = ContiguousArray(walk(from: head).reversed())
            }
        } else {
            let depth = head.map { entries[$0].depth + 1 } ?? 0
            entries.append(RecordEntry(timestamp: timestamp, instance: instance, older: head ?? -1, slot: appendValue(value), depth: depth))
            heads.set(index, for: instance)
            place(index)
            if depth == Self.indexedDepth {
                chains[instance] = ContiguousArray(walk(from: index).reversed())
            } else if depth > Self.indexedDepth {
                chains[instance, default: []].append(index)
            }
        }
    }

    /// Puts a new record at the end of `order` when it comes after the last one there (local
    /// writes: the clock only grows), else in `late`.
    private final func place(_ index: Int) {
        if let last = order.last, !precedes(last, index) {
            late.append(index)
        } else {
            order.append(index)
        }
    }

    /// Whether record `lhs` comes before record `rhs`: by timestamp, then instance (the path
    /// order within one column).
    @inline(__always)
    final func precedes(_ lhs: Int, _ rhs: Int) -> Bool {
        let left = entries[lhs]
        let right = entries[rhs]
        return left.timestamp != right.timestamp ? left.timestamp < right.timestamp : left.instance < right.instance
    }

    /// Every record index, chronologically: merges the `late` records in first.
    final func chronologicalOrder() -> ContiguousArray<Int> {
        guard !late.isEmpty else { return order }
        var arrivals = late
        late = []
        arrivals.sort(by: precedes)
        var merged = ContiguousArray<Int>()
        merged.reserveCapacity(order.count + arrivals.count)
        var next = 0
        for index in order {
            while next < arrivals.count, precedes(arrivals[next], index) {
                merged.append(arrivals[next])
                next += 1
            }
            merged.append(index)
        }
        merged.append(contentsOf: arrivals[next...])
        order = merged
        return merged
    }

    /// The position in `order` (record indexes by timestamp: ``chronologicalOrder()``, or
    /// an instance's chain) of the first record newer than `timestamp`, by binary search; 0
    /// when `nil`.
    final func firstPosition(in order: ContiguousArray<Int>, after timestamp: Timestamp?) -> Int {
        guard let timestamp else { return 0 }
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if entries[order[middle]].timestamp <= timestamp {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Removes the records of each instance that are older than its newest record at or
    /// before `timestamp`: the state at `timestamp` and everything after it stay.
    final func prune(before timestamp: Timestamp) {
        var keep = [Bool](repeating: false, count: entries.count)
        heads.forEach { _, head in
            var index = head
            while index >= 0 {
                keep[index] = true
                if entries[index].timestamp <= timestamp { break }
                index = entries[index].older
            }
        }
        compact(keeping: keep)
    }

    /// How many records the column held after its last ``retain(_:through:horizon:)``:
    /// ``InMemoryHistoryDatabase`` trims it again once it holds twice as many.
    final var retainedCount = 0

    /// Removes the superseded records of each instance that `retention` keeps neither by
    /// count nor by age (records after `horizon`, and the newest one at or before it) and
    /// that are at or before `bound`; the current records stay.
    final func retain(_ retention: HistoryRetention, through bound: Timestamp, horizon: Timestamp?) {
        var keep = [Bool](repeating: false, count: entries.count)
        heads.forEach { _, head in
            var index = head
            var newer = 0
            var passedHorizon = false
            while index >= 0 {
                let timestamp = entries[index].timestamp
                let keptByAge = horizon.map { timestamp > $0 || !passedHorizon } ?? false
                if let horizon, timestamp <= horizon { passedHorizon = true }
                let keptByCount = retention.versions.map { newer < $0 } ?? false
                keep[index] = newer == 0 || timestamp > bound || keptByAge || keptByCount
                newer += 1
                index = entries[index].older
            }
        }
        compact(keeping: keep)
        retainedCount = entries.count
    }

    /// The record of an instance with exactly this timestamp, if there is one.
    final func record(of instance: InstanceKey, exactlyAt timestamp: Timestamp) -> Int? {
        guard let index = record(of: instance, at: timestamp), entries[index].timestamp == timestamp else { return nil }
        return index
    }

    /// Removes these records (those the column holds), in one pass over the column; an
    /// instance's newest remaining record becomes its current value, and with none left it
    /// has no value.
    final func withdraw(_ records: [(instance: InstanceKey, timestamp: Timestamp)]) {
        var keep = [Bool](repeating: true, count: entries.count)
        for (instance, timestamp) in records {
            if let index = record(of: instance, exactlyAt: timestamp) { keep[index] = false }
        }
        compact(keeping: keep)
    }

    /// Keeps the records marked in `keep`, in their order; each instance's chain is linked
    /// past the removed ones, and an instance without records left has no head.
    private final func compact(keeping keep: [Bool]) {
        guard keep.contains(false) else { return }
        /// The first kept record from `index` down its chain, or -1.
        func keptRecord(from index: Int) -> Int {
            var index = index
            while index >= 0, !keep[index] { index = entries[index].older }
            return index
        }
        var newIndex = [Int](repeating: -1, count: entries.count)
        var kept: ContiguousArray<RecordEntry> = []
        var keptSlots: [ValueSlot] = []
        for (index, entry) in entries.enumerated() where keep[index] {
            newIndex[index] = kept.count
            kept.append(entry)
            keptSlots.append(entry.slot)
        }
        let newSlots = compactValues(keepingSlots: keptSlots)
        var position = 0
        for (index, entry) in entries.enumerated() where keep[index] {
            let older = keptRecord(from: entry.older)
            kept[position] = RecordEntry(
                timestamp: entry.timestamp,
                instance: entry.instance,
                older: older >= 0 ? newIndex[older] : -1,
                slot: newSlots[position],
                depth: 0
            )
            position += 1
        }
        var newHeads = IntTable()
        heads.forEach { instance, head in
            let newest = keptRecord(from: head)
            if newest >= 0 { newHeads.set(newIndex[newest], for: instance) }
        }
        entries = kept
        heads = newHeads
        // Removing records keeps the others' order: renumber it.
        order = ContiguousArray(order.lazy.map { newIndex[$0] }.filter { $0 >= 0 })
        late = ContiguousArray(late.lazy.map { newIndex[$0] }.filter { $0 >= 0 })
        // Chains got shorter: count again, and index the long ones.
        chains = [:]
        heads.forEach { instance, head in
            let chain = walk(from: head)
            for (position, index) in chain.enumerated() {
                entries[index].depth = Int32(chain.count - 1 - position)
            }
            if chain.count > Int(Self.indexedDepth) {
                chains[instance] = ContiguousArray(chain.reversed())
            }
        }
    }

    /// Keeps only the values at `slots` (in that order) and returns their new slots.
    func compactValues(keepingSlots slots: [ValueSlot]) -> [ValueSlot] {
        var kept: ContiguousArray<any DatabaseValue> = []
        let newSlots = slots.map { slot -> ValueSlot in
            guard !slot.isUnboxed else { return slot }
            kept.append(others[slot.index])
            return .boxed(kept.count - 1)
        }
        others = kept
        return newSlots
    }

    /// Stores a value and returns its slot.
    func appendValue<V: DatabaseValue>(_ value: V) -> ValueSlot {
        others.append(value)
        return .boxed(others.count - 1)
    }

    func value<V: DatabaseValue>(ofRecord index: Int, as type: V.Type) -> V? {
        let slot = entries[index].slot
        return slot.isUnboxed ? nil : castStoredValue(others[slot.index], as: V.self)
    }

    func anyValue(ofRecord index: Int) -> any DatabaseValue {
        others[entries[index].slot.index]
    }

    /// Appends every record of one instance, oldest first.
    final func appendRecords(of instance: InstanceKey, path: Path, to records: inout [Record]) {
        var chain: [Record] = []
        var index = heads[instance] ?? -1
        while index >= 0 {
            chain.append(Record(path: path, timestamp: entries[index].timestamp, value: anyValue(ofRecord: index)))
            index = entries[index].older
        }
        records.append(contentsOf: chain.reversed())
    }
}

final class TypedHistoryColumn<Value: DatabaseValue>: HistoryColumn {

    private let unboxed = UnboxedValues<Value>()

    deinit { unboxed.free() }

    override func appendValue<V: DatabaseValue>(_ value: V) -> ValueSlot {
        guard let typed = UnboxedValues<Value>.unboxed(value) else { return super.appendValue(value) }
        unboxed.values.append(typed)
        return .unboxed(unboxed.values.count - 1)
    }

    override func value<V: DatabaseValue>(ofRecord index: Int, as type: V.Type) -> V? {
        let slot = entries[index].slot
        return slot.isUnboxed ? unboxed.value(at: slot.index, as: V.self) : castStoredValue(others[slot.index], as: V.self)
    }

    override func anyValue(ofRecord index: Int) -> any DatabaseValue {
        let slot = entries[index].slot
        return slot.isUnboxed ? unboxed.values[slot.index] : others[slot.index]
    }

    override func compactValues(keepingSlots slots: [ValueSlot]) -> [ValueSlot] {
        let otherSlots = super.compactValues(keepingSlots: slots)
        var kept: ContiguousArray<Value> = []
        kept.reserveCapacity(slots.count)
        let newSlots = zip(slots, otherSlots).map { slot, otherSlot -> ValueSlot in
            guard slot.isUnboxed else { return otherSlot }
            kept.append(unboxed.values[slot.index])
            return .unboxed(kept.count - 1)
        }
        unboxed.values = kept
        return newSlots
    }
}

/// One record of a ``HistoryColumn``, without its value.
struct RecordEntry {
    let timestamp: Timestamp
    let instance: InstanceKey
    /// The next older record of the same instance, or -1.
    var older: Int
    /// Where the record's value sits.
    let slot: ValueSlot
    /// How many older records the instance has.
    var depth: Int32
}
