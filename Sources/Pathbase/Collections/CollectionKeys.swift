/// How a collection's structs map to paths: every key derived from names, never from the
/// order in which types or keys were first seen, so two replicas that never talked store
/// the same struct under the same paths.
///
/// - model key: `2^30 + hash(name) mod 2^30`, above the small ids `@Model` classes use, and
///   within 31 bits so the in-memory databases keep their packed fast path;
/// - property key per top-level coding key: `16 + hash(name, key) mod (2^31 − 16)`; 1–15
///   are reserved (the struct's id, the list of stored keys);
/// - instance key: an integer id itself; a `UUID` or `String` id hashed to 63 bits, with the
///   id stored alongside so that two ids with one hash are reported, never merged.
///
/// The hash is 64-bit FNV-1a of the UTF-8 bytes, finalized: stable across processes, platforms and
/// Swift versions, unlike `Hasher`.
enum CollectionKeys {

    /// The property holding the id a hashed instance key was derived from.
    static let originProperty: PropertyKey = 1

    /// The property holding the sorted coding keys an instance has stored (`[String]`).
    static let fieldsProperty: PropertyKey = 2

    /// The model listing the collections of a database: one instance per collection (its
    /// model key), property 1 its name.
    static let catalogModel: ModelKey = 0x3FFF_FF00

    /// The property of a catalog entry holding the collection's name.
    static let catalogNameProperty: PropertyKey = 1

    /// The model holding the generated-id counters: one instance per collection. On a
    /// database with a history clock, each replica counts under its own property
    /// (``replicaCounterProperty(_:)``): the records sync like any other, and a replica
    /// never takes another's counter for its own. On one without (which can't sync),
    /// property 1 holds a random replica number and 2 the last number handed out — as
    /// every database did before, whose values still count when the replica number is
    /// this clock's.
    static let counterModel: ModelKey = 0x3FFF_FF01

    /// Whether a model holds bookkeeping (the collections' catalog, the id counters, the
    /// `@Model` types' descriptions at `ModelCatalog.model`, `0x3FFF_FF02`) rather than an
    /// app's data.
    static func isBookkeeping(_ model: ModelKey) -> Bool {
        model == catalogModel || model == counterModel || model == ModelCatalog.model
    }

    /// The property of a collection's counter instance where one replica counts.
    static func replicaCounterProperty(_ replica: UInt32) -> PropertyKey {
        PropertyKey(1) << 32 | PropertyKey(replica)
    }

    /// 64-bit FNV-1a, then MurmurHash3's finalizer: FNV alone leaves names that differ in
    /// their last characters (`k1`, `k2`, …) too evenly spread to behave like random keys.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }

    /// The model key of the collection named `name`.
    static func model(named name: String) -> ModelKey {
        ModelKey(1 << 30) + ModelKey(stableHash("collection:" + name) % (1 << 30))
    }

    /// The property key of a top-level coding key in the collection named `collection`.
    static func property(forKey key: String, inCollection collection: String) -> PropertyKey {
        let range = UInt64(Int32.max) - 16
        return PropertyKey(16 + stableHash(collection + "\u{0}" + key) % range)
    }

    /// A hashed instance key: non-negative, 63 bits.
    static func instance(hashing text: String) -> InstanceKey {
        InstanceKey(stableHash(text) & UInt64(Int.max))
    }
}
