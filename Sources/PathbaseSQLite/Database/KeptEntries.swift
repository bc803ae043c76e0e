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
    /// The copy of the body the entries point into.
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity = 256
    /// Values only: a struct's decoding reads no timestamp.
    private let decoded = DecodedBody(decodingTimestamps: false)

    init(database: SQLiteDatabase) {
        self.database = database
        bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        bytes.deallocate()
    }

    /// Takes an instance's kept body (empty: it has no values); `false` when the body does
    /// not read (reads from the file report it).
    func load(_ body: UnsafeRawBufferPointer) -> Bool {
        guard let source = body.baseAddress, !body.isEmpty else { return decoded.decode(body) }
        if body.count > byteCapacity {
            bytes.deallocate()
            byteCapacity = body.count
            bytes = .allocate(capacity: byteCapacity)
        }
        UnsafeMutableRawPointer(bytes).copyMemory(from: source, byteCount: body.count)
        return decoded.decode(UnsafeRawBufferPointer(start: bytes, count: body.count))
    }

    // Specialized for the common field types, as `get` is: called through the protocol,
    // the generic body looks up type metadata for every read.
    @_specialize(where Value == Int)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    func value<Value: DatabaseValue>(of property: PropertyKey) -> Value? {
        guard let entry = decoded.entry(of: property) else { return nil }
        do throws(SQLiteDatabaseError) {
            return try database.codec.decode(Value.self, entry: entry)
        } catch {
            database.report(error)
            return nil
        }
    }
}
