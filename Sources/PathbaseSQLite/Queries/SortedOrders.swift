import GRDBSQLite
import Pathbase

/// The order of every active instance of a model by one sort, kept in memory for a
/// read-only connection (``SQLiteDatabase/sortedInstanceIds(of:sortedBy:offset:limit:)``),
/// so that a tool paging through a sorted table (Studio) sorts the model once rather than
/// for every page: a sort on a property without a value index reads every instance.
///
/// Kept until another connection commits (`PRAGMA data_version`): a read-only connection
/// changes nothing itself. At most ``capacity`` orders, the oldest dropped first. Used
/// while holding the database's lock.
final class SortedOrders {

    /// A sort of a model: the query's shape (property, type, direction) and the value that
    /// instances without one sort as.
    struct Key: Hashable {
        let shape: QueryShape
        let defaultValue: QueryOperand
    }

    private let capacity = 4
    private var orders: [Key: (version: Int64, ids: [InstanceKey])] = [:]
    private var used: [Key] = []
    private var dataVersion = DataVersion()

    /// The file's data version now.
    func version(handle: OpaquePointer) throws(SQLiteDatabaseError) -> Int64? {
        try dataVersion.read(handle: handle)
    }

    /// The order kept for `key` at `version`, if any.
    func order(_ key: Key, at version: Int64) -> [InstanceKey]? {
        guard let kept = orders[key], kept.version == version else { return nil }
        return kept.ids
    }

    /// Keeps an order read at `version`.
    func keep(_ ids: [InstanceKey], for key: Key, at version: Int64) {
        used.removeAll { $0 == key }
        used.append(key)
        orders[key] = (version, ids)
        while used.count > capacity { orders[used.removeFirst()] = nil }
    }

    func finalize() {
        dataVersion.finalize()
        orders.removeAll()
        used.removeAll()
    }
}

extension SQLiteDatabase {

    /// The active instances of `model` in `sort`'s order, `limit` of them from `offset`, as
    /// ``instanceIds(of:where:sortedBy:offset:limit:readingValues:)`` returns them. On a
    /// read-only connection the whole order is read once and kept until another connection
    /// commits, so later pages cost no scan (the first costs a full sort, about 1.4 s at 10^6
    /// instances); on a writable one each call runs the query.
    package func sortedInstanceIds(of model: ModelKey, sortedBy sort: StoredSort, offset: Int, limit: Int) -> [InstanceKey]? {
        let key = SortedOrders.Key(shape: QueryShape(model: model, predicate: nil, sort: sort, readingValues: false), defaultValue: sort.defaultValue)
        let kept = locked { () -> (version: Int64?, ids: [InstanceKey]?) in
            guard let handle = try? openHandle(), sqlite3_db_readonly(handle, "main") == 1, let version = try? sortedOrders.version(handle: handle) else { return (nil, nil) }
            return (version, sortedOrders.order(key, at: version))
        }
        guard let version = kept.version else {
            return instanceIds(of: model, where: nil, sortedBy: sort, offset: offset, limit: limit, readingValues: false)
        }
        let ids: [InstanceKey]
        if let order = kept.ids {
            ids = order
        } else {
            // Read after the version: a commit in between only makes the next call read again.
            guard let order = instanceIds(of: model, where: nil, sortedBy: sort, offset: 0, limit: nil, readingValues: false) else { return nil }
            locked { sortedOrders.keep(order, for: key, at: version) }
            ids = order
        }
        return Array(ids.dropFirst(offset).prefix(limit))
    }
}
