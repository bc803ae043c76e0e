import CPathbaseBodies
import Foundation
import GRDBSQLite
import Pathbase

/// The current values of the models listed in the running transaction, each model read
/// with one range scan, so that a listing — `all(of:)`, then every property of every
/// instance — costs one scan instead of one b-tree descent per value.
///
/// Listing a model's current instances inside a transaction (`read { }` or `batch { }`)
/// scans the model's range of `instance_values` (one body per instance, which holds its
/// status too), keeps the bodies, and answers later reads of its properties from them.
///
/// The rows stay in the scan's order, and a read finds its instance from where the last
/// read was (a listing reads instance after instance), by binary search otherwise: no
/// hashing per read, which cost a third of a listing when the values were a dictionary by
/// path.
///
/// What is kept is exactly what the file holds for the transaction: other connections can't
/// change what a transaction sees; the bodies this connection writes (``PendingWrites``, the
/// only writer of bodies) are written through to the kept rows. Everything is dropped when
/// the transaction ends, when it or one of its savepoints rolls back, and when this
/// connection changed a row otherwise since the values were read (`sqlite3_total_changes64`);
/// a model must be listed again after that. A model whose bodies exceed ``maximumBytes`` is
/// not kept (memory), and a body that does not read (a damaged file) is read from the file,
/// which reports it.
///
/// A query's matches are kept the same way, only their instances: a collection decoding
/// them says so first (``willRead(_:instances:connection:)``), and each instance is read
/// with one range scan instead of one b-tree descent per field. A collection's `fetch()`
/// has its model scanned before listing it (``willReadAll(_:connection:)``), so that the
/// statuses come from the kept rows too. Used while holding the database's lock.
final class ListingColumns: RowMirror {

    /// The most bytes of bodies one kept model may have: a listing of a model with large
    /// `Data` values, or of very many instances, reads them from the file rather than
    /// copying them all.
    static let maximumBytes = 64 << 20

    /// What a read of a path finds here.
    enum Lookup {
        /// The path's model is not kept: read the file.
        case notKept
        /// The model is kept and the path has no current value.
        case absent
        /// The path's current record, read from the kept body (valid until the kept rows
        /// change: this connection writes, or the transaction ends; read it at once).
        case kept(BodyEntryColumns)
    }

    /// What is known of a listed model.
    private enum Model {
        /// Its values are kept.
        case kept(KeptRows)
        /// Too many values to keep: read them from the file.
        case tooMany

        /// Kept values of some instances only (a query's matches).
        var keepsSomeInstances: Bool {
            if case .kept(let rows) = self { return !rows.complete }
            return false
        }
    }

    /// The listed models; rarely more than one or two, so a list beats a hash table.
    // Unchecked exclusivity: used only under the database's lock, and the dynamic checks
    // of these class properties cost a tenth of a listing.
    @exclusivity(unchecked) private var models: [(key: ModelKey, model: Model)] = []
    @exclusivity(unchecked) private var changesWhenListed: Int64 = 0
    /// The instance read last, whose rows hold its entries decoded: a listing reads an
    /// instance's properties one after another, and finding the model and the instance
    /// again for each was half of a read. Cleared whenever the kept rows change.
    @exclusivity(unchecked) private var recent: (model: ModelKey, instance: InstanceKey, rows: Unmanaged<KeptRows>)?
    private var scanStatement: Statement?
    private var instanceStatement: Statement?
    /// The model bound to ``instanceStatement``: bound again only when it changes. Binding
    /// it at every call made SQLite compile the statement again at every call (measured
    /// with `SQLITE_STMTSTATUS_REPREPARE` on a collection with a value index, whose partial
    /// index names its model as a literal): a fifth of a query's time.
    private var instanceStatementModel: ModelKey?

    /// Every current value of these instances of `model` is about to be read: keeps them,
    /// each read with one range scan, unless the whole model is listed.
    func willRead(_ model: ModelKey, instances: [InstanceKey], connection: OpaquePointer) throws(SQLiteDatabaseError) {
        dropIfChanged(connection: connection)
        recent = nil
        let index = models.firstIndex(where: { $0.key == model })
        // A listed model answers already; so do the matches of the query that found these
        // instances (``keepMatches(of:from:connection:)``); another query's are replaced.
        if let index {
            guard case .kept(let rows) = models[index].model, !rows.complete else { return }
            if rows.holdsAll(instances) { return }
        }
        if instanceStatement == nil {
            instanceStatement = try Statement(
                sql: "SELECT instance, body FROM instance_values WHERE model = ?1 AND instance = ?2",
                connection: connection
            )
        }
        guard let read = instanceStatement else { return }
        let rows = KeptRows(expectedInstances: instances.count, complete: false)
        if instanceStatementModel != model {
            read.bind(model, at: 1)
            instanceStatementModel = model
        }
        var previous: InstanceKey?
        for instance in instances.sorted() where instance != previous {
            previous = instance
            read.bind(instance, at: 2)
            defer { read.reset() }
            if try read.hasRow() {
                rows.append(instance: instance, body: read, column: 1)
                // Too many to keep: read from the file, as a listing of too many.
                if rows.isFull { return }
            } else {
                // Known to have no values (a struct about to be saved for the first time).
                rows.appendEmpty(instance: instance)
            }
        }
        if let index {
            models[index].model = .kept(rows)
        } else {
            models.append((model, .kept(rows)))
        }
    }

    /// Keeps the bodies of a query statement that returns its matches with their bodies
    /// (``QuerySQL/readsValues``: instance, body), and returns the matches that are active —
    /// whose status (property 0) is `.created` — in the statement's order. A listed model
    /// keeps what it has; another query's matches are replaced. Past what it keeps, the ids
    /// are still returned and the values are read from the file.
    func keepMatches(of model: ModelKey, from statement: Statement, connection: OpaquePointer) throws(SQLiteDatabaseError) -> [InstanceKey] {
        dropIfChanged(connection: connection)
        recent = nil
        let index = models.firstIndex(where: { $0.key == model })
        var keeping = index.map { models[$0].model.keepsSomeInstances } ?? true
        let rows = KeptRows(expectedInstances: 16, complete: false)
        var ids: [InstanceKey] = []
        ids.reserveCapacity(16)
        while try statement.hasRow() {
            let instance = InstanceKey(truncatingIfNeeded: statement.int64(at: 0))
            guard let status = try statement.bodyEntry(at: 1, property: PropertyKey.instanceId),
                ActiveStatus.holds(tag: status.entry.tag, integer: status.entry.kind == PATHBASE_KIND_INTEGER ? status.entry.integer : nil)
            else { continue }
            ids.append(instance)
            if keeping {
                rows.append(instance: instance, body: statement, column: 1)
                if rows.isFull { keeping = false }
            }
        }
        if keeping {
            rows.sortInstances()
            if let index {
                models[index].model = .kept(rows)
            } else {
                models.append((model, .kept(rows)))
            }
        }
        return ids
    }

    /// Every current value of `model` is about to be read (a collection's `fetch()`): reads
    /// them now, so that the model's statuses come from the same scan
    /// (``keptStatuses(of:connection:_:)``) instead of a second pass over the file.
    func willReadAll(_ model: ModelKey, connection: OpaquePointer) throws(SQLiteDatabaseError) {
        dropIfChanged(connection: connection)
        recent = nil
        let index = models.firstIndex(where: { $0.key == model })
        if let index {
            switch models[index].model {
            case .tooMany: return
            case .kept(let rows) where rows.complete: return
            case .kept: break
            }
        }
        let state: Model = try scan(model, instances: 0, connection: connection).map { .kept($0) } ?? .tooMany
        if let index {
            models[index].model = state
        } else {
            models.append((model, state))
        }
    }

    /// The statuses of `model` read from its kept values, ascending, when every value of it
    /// is kept; `nil` when not, or when a status must be read from the file.
    func keptStatuses(
        of model: ModelKey, connection: OpaquePointer, _ decode: (BodyEntryColumns) throws(SQLiteDatabaseError) -> InstanceStatus?
    ) throws(SQLiteDatabaseError) -> [(InstanceKey, InstanceStatus)]? {
        guard !models.isEmpty else { return nil }
        dropIfChanged(connection: connection)
        guard let entry = models.first(where: { $0.key == model }), case .kept(let rows) = entry.model, rows.complete else { return nil }
        return try rows.statuses(decode)
    }

    /// The current value of `path`, if its model was listed.
    @inline(__always)
    func value(at path: Path, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Lookup {
        guard !models.isEmpty else { return .notKept }
        dropIfChanged(connection: connection)
        if let recent, recent.instance == path.instance, recent.model == path.model {
            return recent.rows._withUnsafeGuaranteedRef { $0.decodedEntry(of: path.property) }
        }
        return lookUp(path)
    }

    /// ``value(at:connection:)`` of an instance other than the one read last.
    private func lookUp(_ path: Path) -> Lookup {
        guard let index = models.firstIndex(where: { $0.key == path.model }) else { return .notKept }
        switch models[index].model {
        case .tooMany:
            return .notKept
        case .kept(let rows):
            let found = rows.value(instance: path.instance, property: path.property)
            // The rows' decoded entries may now be another instance's.
            recent = rows.decodedIsCurrent(path.instance) ? (path.model, path.instance, Unmanaged.passUnretained(rows)) : nil
            return found
        }
    }

    /// The kept body of an instance, empty when it is known to have none; `nil` when it is
    /// not kept (read the file). Valid until the kept rows change.
    func keptBody(of instance: ModelInstance) -> UnsafeRawBufferPointer? {
        guard !models.isEmpty, let entry = models.first(where: { $0.key == instance.model }), case .kept(let rows) = entry.model else { return nil }
        return rows.keptBody(of: instance.instance)
    }

    /// This connection wrote these bodies (a flush of pending writes): the kept rows take
    /// them, so that a listing stays valid through the writes of the transaction that
    /// listed it (a save checks what is stored, then writes). Only ``PendingWrites``
    /// writes bodies; ``flushEnded(connection:)`` follows.
    func bodiesWritten(_ bodies: [(instance: ModelInstance, body: [UInt8])]) {
        recent = nil
        for (instance, body) in bodies {
            guard let index = models.firstIndex(where: { $0.key == instance.model }), case .kept(let rows) = models[index].model else { continue }
            // Past what a model may keep: its reads go to the file.
            if !rows.replaceBody(of: instance.instance, with: body) { models[index].model = .tooMany }
        }
    }

    /// A flush of pending writes ended: its changes are in the kept rows.
    func flushEnded(connection: OpaquePointer) {
        changesWhenListed = sqlite3_total_changes64(connection)
    }

    /// The transaction ended: what it saw may change.
    func transactionEnded() {
        recent = nil
        models.removeAll()
    }

    func rowsRolledBack() {
        transactionEnded()
    }

    func finalize() {
        scanStatement?.finalize()
        scanStatement = nil
        instanceStatement?.finalize()
        instanceStatement = nil
        instanceStatementModel = nil
        transactionEnded()
    }

    /// Drops everything when this connection changed a row since the models were listed.
    func dropIfChanged(connection: OpaquePointer) {
        let changes = sqlite3_total_changes64(connection)
        if changes != changesWhenListed {
            transactionEnded()
            changesWhenListed = changes
        }
    }

    /// Reads a model's current values; `nil` if they are more than it keeps.
    private func scan(_ model: ModelKey, instances: Int, connection: OpaquePointer) throws(SQLiteDatabaseError) -> KeptRows? {
        if scanStatement == nil {
            scanStatement = try Statement(
                sql: "SELECT instance, body FROM instance_values WHERE model = ?1",
                connection: connection
            )
        }
        guard let scan = scanStatement else { return nil }
        defer { scan.reset() }
        scan.bind(model, at: 1)
        let rows = KeptRows(expectedInstances: instances, complete: true)
        while try scan.hasRow() {
            rows.append(instance: InstanceKey(truncatingIfNeeded: scan.int64(at: 0)), body: scan, column: 1)
            if rows.isFull { return nil }
        }
        return rows
    }
}

/// One model's current values: each instance's body, copied as the file holds it, with
/// where the last read found its instance: all of them (`complete`), or those of some
/// instances. The instances are searched in ascending order (``sortInstances()`` when a
/// query's matches came in another). The first read of an instance decodes its body (the
/// statuses are found in each with `pathbase_body_find`), and its entries are read through
/// ``BodyEntryColumns``, as reads from the file are.
///
/// Plain data only: the bodies are copied into one buffer. Decoding them into a slot per
/// value when scanning cost more than the scan itself; a `String` or `Data` per value cost
/// an allocation each and, freed through generic value witnesses, a fifth of a
/// collection's `fetch()` when the transaction ended.
private final class KeptRows {
    /// Whether every instance of the model is here: an instance that isn't has no values.
    /// Otherwise its values are read from the file.
    let complete: Bool
    /// Each instance once, ascending, with where its body is in ``bytes``.
    // Unchecked exclusivity as in ``ListingColumns``.
    @exclusivity(unchecked) private var instances: [(instance: InstanceKey, start: Int, length: Int)] = []
    /// The kept bodies; grown while rows are added, never after.
    private var bytes: UnsafeMutableRawPointer?
    private var byteCount = 0
    private var byteCapacity = 0
    /// The index in ``instances`` of the last read's instance.
    @exclusivity(unchecked) private var cursor = 0
    /// The entries of the body at ``decodedPosition``, decoded at its first read: reads of
    /// an instance's properties follow one another, and searching the body for each
    /// (stepping over the entries before it) cost more than decoding it once.
    private let decoded = DecodedBody()
    @exclusivity(unchecked) private var decodedPosition = -1
    /// Whether the body at ``decodedPosition`` does not read (reads go to the file).
    private var decodedIsMalformed = false

    init(expectedInstances: Int, complete: Bool) {
        self.complete = complete
        instances.reserveCapacity(expectedInstances)
    }

    deinit {
        bytes?.deallocate()
    }

    /// Whether more bytes than ``ListingColumns`` keeps were offered: the rows are then
    /// dropped and the reads go to the file.
    private(set) var isFull = false

    /// Adds an instance's body (the current row's column `column`).
    func append(instance: InstanceKey, body row: Statement, column: Int32) {
        row.withBytes(at: column) { body in
            // Checked before copying: one large body is not copied either.
            guard byteCount + body.count <= ListingColumns.maximumBytes else {
                isFull = true
                return
            }
            instances.append((instance, byteCount, body.count))
            copy(body)
            // The decoded entries point into the bytes, which may have moved.
            decodedPosition = -1
        }
    }

    /// Adds an instance that has no body: its reads find no value.
    func appendEmpty(instance: InstanceKey) {
        instances.append((instance, byteCount, 0))
    }

    /// The body of an instance, empty when it is known to have none; `nil` when it is not
    /// kept.
    func keptBody(of instance: InstanceKey) -> UnsafeRawBufferPointer? {
        guard let found = position(of: instance) else { return complete ? UnsafeRawBufferPointer(start: nil, count: 0) : nil }
        cursor = found
        return body(at: found)
    }

    /// Takes the body an instance has now; `false` when it is more than the rows may keep.
    func replaceBody(of instance: InstanceKey, with body: [UInt8]) -> Bool {
        let found = position(of: instance)
        // Some instances only: one not among them is read from the file.
        guard found != nil || complete else { return true }
        guard byteCount + body.count <= ListingColumns.maximumBytes else { return false }
        let kept = (instance: instance, start: byteCount, length: body.count)
        body.withUnsafeBytes { copy($0) }
        if let found {
            instances[found] = kept
        } else {
            instances.insert(kept, at: lowerBound(of: instance))
        }
        // The bytes may have moved, and the decoded instance may be this one.
        decodedPosition = -1
        return true
    }

    /// Puts the instances in ascending order, for ``position(of:)``'s binary search, when
    /// they came in another (the matches of a query sorted by a field).
    func sortInstances() {
        if !zip(instances, instances.dropFirst()).allSatisfy({ $0.instance < $1.instance }) {
            instances.sort { $0.instance < $1.instance }
        }
    }

    /// Whether every one of these instances has its rows here.
    func holdsAll(_ wanted: [InstanceKey]) -> Bool {
        wanted.allSatisfy { instance in
            guard let found = position(of: instance) else { return false }
            cursor = found
            return true
        }
    }

    private func copy(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        if byteCount + source.count > byteCapacity {
            let capacity = max(4096, byteCapacity * 2, byteCount + source.count)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            if let bytes {
                grown.copyMemory(from: bytes, byteCount: byteCount)
                bytes.deallocate()
            }
            bytes = grown
            byteCapacity = capacity
        }
        bytes?.advanced(by: byteCount).copyMemory(from: base, byteCount: source.count)
        byteCount += source.count
    }

    func value(instance: InstanceKey, property: PropertyKey) -> ListingColumns.Lookup {
        guard let found = position(of: instance) else { return complete ? .absent : .notKept }
        cursor = found
        if found != decodedPosition {
            decodedPosition = found
            decodedIsMalformed = !decoded.decode(body(at: found))
        }
        guard !decodedIsMalformed else { return .notKept }
        return decoded.entry(of: property).map { .kept($0) } ?? .absent
    }

    /// Whether the decoded entries are those of `instance`'s body, which reads: what
    /// ``decodedEntry(of:)`` answers from.
    func decodedIsCurrent(_ instance: InstanceKey) -> Bool {
        decodedPosition >= 0 && !decodedIsMalformed && instances[decodedPosition].instance == instance
    }

    /// The entry of `property` among the decoded entries (``decodedIsCurrent(_:)``).
    @inline(__always)
    func decodedEntry(of property: PropertyKey) -> ListingColumns.Lookup {
        decoded.entry(of: property).map { .kept($0) } ?? .absent
    }

    /// Each instance's status (its value of property 0) as `decode` reads it, ascending,
    /// leaving out those it reads as none; `nil` if one must be read from the file.
    func statuses(_ decode: (BodyEntryColumns) throws(SQLiteDatabaseError) -> InstanceStatus?) throws(SQLiteDatabaseError) -> [(InstanceKey, InstanceStatus)]? {
        var statuses: [(InstanceKey, InstanceStatus)] = []
        statuses.reserveCapacity(instances.count)
        for position in instances.indices {
            switch entry(at: position, property: PropertyKey.instanceId) {
            case .kept(let status):
                if let status = try decode(status) { statuses.append((instances[position].instance, status)) }
            case .absent:
                break
            case .notKept:
                return nil
            }
        }
        return statuses
    }

    /// The entry of `property` in the body of the instance at `position` in ``instances``;
    /// ``ListingColumns/Lookup/notKept`` for a malformed body, whose reads from the file
    /// report it.
    private func entry(at position: Int, property: PropertyKey) -> ListingColumns.Lookup {
        let body = body(at: position)
        guard let base = body.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .absent }
        var entry = pathbase_entry()
        switch pathbase_body_find(base, Int32(body.count), Int64(property), &entry) {
        case 1: return .kept(BodyEntryColumns(entry: entry))
        case 0: return .absent
        default: return .notKept
        }
    }

    /// The kept body of the instance at `position` in ``instances``.
    private func body(at position: Int) -> UnsafeRawBufferPointer {
        let kept = instances[position]
        return UnsafeRawBufferPointer(start: kept.length > 0 ? bytes?.advanced(by: kept.start) : nil, count: kept.length)
    }

    /// The index of `instance` in ``instances``: at the cursor or just after it when reads
    /// follow the listing, else by binary search.
    private func position(of instance: InstanceKey) -> Int? {
        if cursor < instances.count, instances[cursor].instance == instance { return cursor }
        if cursor + 1 < instances.count, instances[cursor + 1].instance == instance { return cursor + 1 }
        let low = lowerBound(of: instance)
        return low < instances.count && instances[low].instance == instance ? low : nil
    }

    /// The index of the first instance not below `instance`.
    private func lowerBound(of instance: InstanceKey) -> Int {
        var low = 0, high = instances.count
        while low < high {
            let middle = (low + high) / 2
            if instances[middle].instance < instance { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
