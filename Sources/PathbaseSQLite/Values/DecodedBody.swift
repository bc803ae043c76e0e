import CPathbaseBodies
import Pathbase

/// A body's entries decoded in one C call (`pathbase_body_decode`) into a buffer that grows
/// to the largest body seen: what reads of one instance's properties search, instead of
/// stepping through the body for each. An entry's value points into the body decoded, which
/// must stay where it is while the entries are read.
final class DecodedBody {
    // Used under the database's lock by one reader at a time: no dynamic exclusivity checks,
    // which cost a tenth of a listing's reads.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<pathbase_entry>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var count = 0
    /// Whether the entries' timestamps are decoded too; without them a body decodes in a
    /// fifth less (a collection decoding a struct reads values only).
    private let decodesTimestamps: Bool

    init(decodingTimestamps: Bool = true) {
        decodesTimestamps = decodingTimestamps
        entries = .allocate(capacity: capacity)
    }

    deinit {
        entries.deallocate()
    }

    /// Decodes `body` (empty: no entries); `false` when it is not a body, which then has no
    /// entries.
    func decode(_ body: UnsafeRawBufferPointer) -> Bool {
        count = 0
        guard let base = body.baseAddress?.assumingMemoryBound(to: UInt8.self), !body.isEmpty else { return true }
        let decode = decodesTimestamps ? pathbase_body_decode : pathbase_body_decode_values
        var decoded = Int(decode(base, Int32(body.count), entries, Int32(capacity)))
        if decoded > capacity {
            entries.deallocate()
            capacity = decoded
            entries = .allocate(capacity: decoded)
            decoded = Int(decode(base, Int32(body.count), entries, Int32(capacity)))
        }
        guard decoded >= 0 else { return false }
        count = decoded
        return true
    }

    /// The entry of `property`, read as columns; `nil` when the body has none.
    @inline(__always)
    func entry(of property: PropertyKey) -> BodyEntryColumns? {
        let key = Int64(property)
        for index in 0 ..< count where entries[index].property == key {
            return BodyEntryColumns(entry: entries[index])
        }
        return nil
    }
}
