/// A hash table from `Int` keys to non-negative `Int` values, for the in-memory databases'
/// hot paths.
///
/// Open addressing with linear probing over one array of (key, value) pairs, so a lookup
/// usually touches one cache line, and multiplicative hashing instead of `Hasher`'s SipHash.
/// Removal (used by the caches) shifts the rest of the probe run back, so no tombstones
/// build up. Not resistant to adversarial keys; the keys here are the program's own ids.
struct IntTable {

    private struct Entry {
        var key: Int
        /// The value plus one; 0 marks an empty bucket.
        var stored: Int
    }

    private var entries: ContiguousArray<Entry>
    private var shift: UInt64
    private(set) var count = 0

    init() {
        entries = ContiguousArray(repeating: Entry(key: 0, stored: 0), count: 16)
        shift = 64 - 4
    }

    @inline(__always)
    private func bucket(of key: Int) -> Int {
        // Fibonacci hashing: the high bits of key × 2^64/φ spread consecutive ids evenly.
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The value stored for a key.
    @inline(__always)
    subscript(key: Int) -> Int? {
        var index = bucket(of: key)
        let mask = entries.count - 1
        while true {
            let entry = entries[index]
            if entry.stored == 0 { return nil }
            if entry.key == key { return entry.stored - 1 }
            index = (index + 1) & mask
        }
    }

    /// Stores a value (`>= 0`) for a key, replacing the previous one.
    @inline(__always)
    mutating func set(_ value: Int, for key: Int) {
        var index = bucket(of: key)
        let mask = entries.count - 1
        while true {
            let stored = entries[index].stored
            if stored == 0 { break }
            if entries[index].key == key {
                entries[index].stored = value + 1
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(key: key, stored: value + 1)
        count += 1
        if count * 2 > entries.count { grow() }
    }

    /// Removes a key and returns its value, or `nil` if the key was not stored.
    @discardableResult
    mutating func remove(_ key: Int) -> Int? {
        let mask = entries.count - 1
        var hole = bucket(of: key)
        while true {
            let entry = entries[hole]
            if entry.stored == 0 { return nil }
            if entry.key == key { break }
            hole = (hole + 1) & mask
        }
        let removed = entries[hole].stored - 1
        // Backward-shift deletion: move each later entry of the probe run into the hole when
        // the hole lies on its probe path (between its home bucket and where it sits).
        var next = (hole + 1) & mask
        while entries[next].stored != 0 {
            let home = bucket(of: entries[next].key)
            if (next &- home) & mask >= (next &- hole) & mask {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        entries[hole] = Entry(key: 0, stored: 0)
        count -= 1
        return removed
    }

    /// Calls `body` with every key and value, in no particular order.
    func forEach(_ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        for entry in entries where entry.stored != 0 {
            try body(entry.key, entry.stored - 1)
        }
    }

    /// The keys, in no particular order.
    var keys: [Int] {
        var keys: [Int] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }

    private mutating func grow() {
        let old = entries
        entries = ContiguousArray(repeating: Entry(key: 0, stored: 0), count: old.count * 2)
        shift -= 1
        count = 0
        for entry in old where entry.stored != 0 {
            set(entry.stored - 1, for: entry.key)
        }
    }
}
