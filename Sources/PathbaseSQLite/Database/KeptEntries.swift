import CPathbaseBodies
import Pathbase

/// An instance's current values as ``ListingColumns`` keeps them, handed to a collection
/// decoding the instance's struct (``SQLiteDatabase/keptValues(of:instance:)``): each read
/// finds its entry among the instance's, without the lock, the lookup of the instance and
/// the pending-write check of a `get` each.
///
/// It holds a copy of the body, decoded: an entry's value points into the body, and a read
/// of another instance may move the kept bytes. Used by the thread that holds the
/// database's lock for the running transaction, which the decoding runs in.
final class KeptEntries: KeptInstanceValues {
    // The database owns this reader.
    private unowned(unsafe) let database: SQLiteDatabase
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity = 256
    private var entries: UnsafeMutablePointer<pathbase_entry>
    private var entryCapacity = 16
    private var count = 0

    init(database: SQLiteDatabase) {
        self.database = database
        bytes = .allocate(capacity: byteCapacity)
        entries = .allocate(capacity: entryCapacity)
    }

    deinit {
        bytes.deallocate()
        entries.deallocate()
    }

    /// Takes an instance's kept body (empty: it has no values); `false` when the body does
    /// not read (reads from the file report it).
    func load(_ body: UnsafeRawBufferPointer) -> Bool {
        count = 0
        guard let source = body.baseAddress, !body.isEmpty else { return true }
        if body.count > byteCapacity {
            bytes.deallocate()
            byteCapacity = body.count
            bytes = .allocate(capacity: byteCapacity)
        }
        UnsafeMutableRawPointer(bytes).copyMemory(from: source, byteCount: body.count)
        var decoded = Int(pathbase_body_decode(bytes, Int32(body.count), entries, Int32(entryCapacity)))
        if decoded > entryCapacity {
            entries.deallocate()
            entryCapacity = decoded
            entries = .allocate(capacity: entryCapacity)
            decoded = Int(pathbase_body_decode(bytes, Int32(body.count), entries, Int32(entryCapacity)))
        }
        guard decoded >= 0 else { return false }
        count = decoded
        return true
    }

    // Specialized for the common field types, as `get` is: called through the protocol,
    // the generic body looks up type metadata for every read.
    @_specialize(where Value == Int)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    func value<Value: DatabaseValue>(of property: PropertyKey) -> Value? {
        let key = Int64(property)
        for index in 0 ..< count where entries[index].property == key {
            do throws(SQLiteDatabaseError) {
                return try database.codec.decode(Value.self, from: BodyEntryColumns(entry: entries[index]), tag: 0, value: 1)
            } catch {
                database.report(error)
                return nil
            }
        }
        return nil
    }
}
