/// A hash table from `Int` keys to non-negative `Int` values, for the in-memory databases'
/// hot paths.
///
/// Open addressing with linear probing over one array of (key, value) pairs, so a lookup
/// usually touches one cache line, and multiplicative hashing instead of `Hasher`'s SipHash.
/// Keys are never removed (instance and column ids only ever get added), which keeps it
/// short. Not resistant to adversarial keys; the keys here are the program's own ids.
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
