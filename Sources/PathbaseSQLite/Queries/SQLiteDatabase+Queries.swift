import GRDBSQLite
import Pathbase

/// Queries run in SQL: `database.fetch(QueryDescriptor(where:sortBy:...))`, LiveQuery's
/// first fetch and inverse lookups reach here through ``Pathbase/Database/fetch(_:)``.
extension SQLiteDatabase: QueryPushdownDatabase {

    package func instanceIds(of model: ModelKey, where predicate: StoredPredicate?, sortedBy sort: StoredSort?, offset: Int, limit: Int?, readingValues: Bool) -> [InstanceKey]? {
        locked { () -> [InstanceKey]? in
            do throws(SQLiteDatabaseError) {
                let connection = try openHandle()
                // The matches' values come with them when every match is read next, in a
                // transaction that keeps them (a page's are read after it: the statement
                // would read the values of every match to find the page).
                let withValues = readingValues && limit == nil && transaction.inBatch
                guard
                    let prepared = try queryStatements.prepared(
                        model: model, predicate: predicate, sort: sort, readingValues: withValues, connection: connection
                    )
                else {
                    return nil
                }
                let query = prepared.query
                for property in query.indexedProperties {
                    try prepareValueIndex(model: model, property: property)
                }
                let statement = prepared.statement
                defer { statement.reset() }
                queryStatements.answered += 1
                for (offset, parameter) in query.parameters(predicate: predicate, sort: sort, offset: offset, limit: limit).enumerated() {
                    statement.bind(parameter, at: Int32(offset + 1))
                }
                if query.readsValues {
                    var ids = try listingColumns.keepMatches(of: model, from: statement, connection: connection)
                    // Each match comes once (one status or value-index row per instance).
                    if sort == nil, !ids.isSorted { ids.sort() }
                    return offset > 0 ? Array(ids.dropFirst(offset)) : ids
                }
                // When the statement doesn't check statuses, keep the active matches here and
                // page them, stopping as soon as the page is full.
                // The set is taken at the first row, inside the statement's read transaction.
                var active: Set<InstanceKey>?
                var skipped = 0
                var ids: [InstanceKey] = []
                while true {
                    switch statement.step() {
                    case SQLITE_ROW:
                        let id = InstanceKey(truncatingIfNeeded: statement.int64(at: 0))
                        if query.checksStatus {
                            ids.append(id)
                            continue
                        }
                        if active == nil { active = try activeInstances.of(model, connection: connection) }
                        guard active?.contains(id) == true else { continue }
                        if query.isUnordered {
                            ids.append(id)
                            continue
                        }
                        if skipped < offset {
                            skipped += 1
                            continue
                        }
                        if let limit, ids.count >= limit { return ids }
                        ids.append(id)
                    case SQLITE_DONE:
                        guard query.isUnordered else { return ids }
                        // Each match comes once (one body per instance).
                        ids.sort()
                        let page = ids.dropFirst(offset)
                        return Array(limit.map { page.prefix($0) } ?? page)
                    case let code: throw error(code)
                    }
                }
            } catch {
                report(error)
                return nil
            }
        }
    }

    package func willReadCurrentValues(of model: ModelKey, instances: [InstanceKey]?) {
        locked {
            guard transaction.inBatch, instances?.isEmpty != true, let handle = try? openHandle() else { return }
            // Only a faster way to the same values: if it fails, the reads go to the file
            // and report what they find.
            if let instances {
                try? listingColumns.willRead(model, instances: instances, connection: handle)
            } else {
                try? listingColumns.willReadAll(model, connection: handle)
            }
        }
    }

    package func keptValues(of model: ModelKey, instance: InstanceKey) -> (any KeptInstanceValues)? {
        locked { () -> KeptEntries? in
            // Pending writes first: a flush writes its bodies through to the kept ones.
            guard transaction.inBatch, let handle = try? openHandle() else { return nil }
            listingColumns.dropIfChanged(connection: handle)
            guard let body = listingColumns.keptBody(of: ModelInstance(model: model, instance: instance)) else { return nil }
            // The same reader again, unless a decoding still holds it (a struct's
            // `init(from:)` that decodes another one).
            var reader = keptEntries ?? KeptEntries(database: self)
            keptEntries = nil
            if !isKnownUniquelyReferenced(&reader) { reader = KeptEntries(database: self) }
            keptEntries = reader
            return reader.load(body) ? reader : nil
        }
    }

    /// The file's data version (any connection's change to it), this connection's changes
    /// and its rollbacks, read in the running transaction after its pending writes are
    /// written and its snapshot taken: the data version of a connection moves only when a
    /// transaction takes a snapshot, so a version read outside one, or before the
    /// transaction's first read, could be older than what its reads see.
    package var contentVersion: ContentVersion? {
        locked { () -> ContentVersion? in
            guard transaction.inBatch, let handle = try? openHandle() else { return nil }
            if sqlite3_txn_state(handle, "main") == SQLITE_TXN_NONE {
                let snapshot = statements.takeSnapshot
                defer { snapshot.reset() }
                let code = snapshot.step()
                guard code == SQLITE_ROW || code == SQLITE_DONE else { return nil }
            }
            var dataVersion: UInt32 = 0
            guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &dataVersion) == SQLITE_OK else { return nil }
            return ContentVersion(Int64(dataVersion), sqlite3_total_changes64(handle), Int64(truncatingIfNeeded: transaction.rollbacks))
        }
    }

    /// How many queries and inverse lookups this database has answered in SQL: tests check
    /// that a query reached SQL — directly and through wrappers — rather than being evaluated
    /// on models.
    package var queriesAnsweredInSQL: Int {
        locked { queryStatements.answered }
    }
}

/// Inverse lookups through prepared statements (see ``Pathbase/ModelProtocol/referrers(through:)-(KeyPath<Source,Self?>)``).
extension SQLiteDatabase: InverseLookupDatabase {

    package func referrers(of target: InstanceKey, model: ModelKey, property: PropertyKey, inList: Bool) -> [InstanceKey]? {
        locked { () -> [InstanceKey]? in
            do throws(SQLiteDatabaseError) {
                let connection = try openHandle()
                let statement: Statement
                if inList {
                    statement = statements.selectListReferrers
                    statement.bind(model, at: 1)
                    statement.bind(property, at: 2)
                    statement.bind(target, at: 3)
                } else {
                    // Ids in the text, so that SQLite uses the property's (partial) value
                    // index; covering, so that a match is not a second seek, into its row.
                    try prepareValueIndex(model: model, property: property, covering: true)
                    statement = try queryStatements.referrersStatement(model: model, property: property, connection: connection)
                    statement.bind(target, at: 1)
                }
                defer { statement.reset() }
                queryStatements.answered += 1
                // The set is taken at the first row, inside the statement's read transaction.
                var active: Set<InstanceKey>?
                var ids: [InstanceKey] = []
                while true {
                    switch statement.step() {
                    case SQLITE_ROW:
                        let id = InstanceKey(truncatingIfNeeded: statement.int64(at: 0))
                        if active == nil { active = try activeInstances.of(model, connection: connection) }
                        if active?.contains(id) == true { ids.append(id) }
                    case SQLITE_DONE:
                        // Ascending: the value index returns them in that order in practice.
                        if !ids.isSorted { ids.sort() }
                        return ids
                    case let code: throw error(code)
                    }
                }
            } catch {
                report(error)
                return nil
            }
        }
    }
}

private extension Array where Element == InstanceKey {
    var isSorted: Bool {
        zip(self, dropFirst()).allSatisfy { $0 < $1 }
    }
}

extension Statement {
    func bind(_ operand: QueryOperand, at index: Int32) {
        switch operand {
        case .integer(let value): bind(value, at: index)
        case .real(let value): bind(value, at: index)
        case .text(let value): bind(value, at: index)
        }
    }
}

/// The prepared statements of recent queries, by ``QueryShape``: a query of the same shape
/// runs again without writing or compiling its SQL. Used while holding the database's lock.
final class QueryStatementCache {

    /// A query's SQL and its compiled statement.
    struct PreparedQuery {
        let query: QuerySQL
        let statement: Statement
    }

    /// Enough for the query shapes of an app's screens; beyond it, the cache starts over.
    private let capacity = 64
    private var queries: [QueryShape: PreparedQuery] = [:]
    private var referrers: [ModelProperty: Statement] = [:]
    private var fixedTexts: [String: Statement] = [:]

    /// Queries and inverse lookups answered (``SQLiteDatabase/queriesAnsweredInSQL``).
    var answered = 0

    /// The statement for a query's shape; `nil` when it can't run in SQL (a value type
    /// without native storage, or an `isIn` list longer than SQLite's 32766 parameters):
    /// the caller evaluates it on the models.
    func prepared(
        model: ModelKey, predicate: StoredPredicate?, sort: StoredSort?, readingValues: Bool, inWindow: Bool = false, connection: OpaquePointer
    ) throws(SQLiteDatabaseError) -> PreparedQuery? {
        let shape = QueryShape(model: model, predicate: predicate, sort: sort, readingValues: readingValues, inWindow: inWindow)
        if let prepared = queries[shape] { return prepared }
        guard let query = QuerySQL(model: model, predicate: predicate, sort: sort, readingValues: readingValues, inWindow: inWindow),
            query.sources.count < 32_000
        else { return nil }
        if queries.count >= capacity { finalize() }
        let prepared = PreparedQuery(query: query, statement: try Statement(sql: query.text, connection: connection))
        queries[shape] = prepared
        return prepared
    }

    /// (?1 target) → the instances whose current value of (model, property) is the target
    /// (an `Int`, as references are stored), in the index's order: the caller sorts them
    /// (SQLite would sort them in a temporary b-tree, which cost more than the lookup's
    /// other steps together). The ids are in the text, so that
    /// SQLite uses the property's value index; kept by (model, property) rather than
    /// by text, since building the text cost more than running the lookup.
    func referrersStatement(model: ModelKey, property: PropertyKey, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        let key = ModelProperty(model: model, property: property)
        if let statement = referrers[key] { return statement }
        if referrers.count >= capacity { finalize() }
        let value = Schema.valueExpressions(property: property, body: "body")
        let statement = try Statement(
            sql: """
                SELECT instance FROM instance_values
                WHERE model = \(model) AND \(value.type) = \(ValueTag.int.rawValue) AND \(value.value) = ?1
                """, connection: connection)
        referrers[key] = statement
        return statement
    }

    /// The statement of a tool's query of fixed text (an instance's records for Studio and
    /// `pathbase history`), compiled once: a page reading hundreds of instances compiled it
    /// hundreds of times.
    func fixed(_ sql: String, connection: OpaquePointer) throws(SQLiteDatabaseError) -> Statement {
        if let statement = fixedTexts[sql] { return statement }
        if fixedTexts.count >= capacity { finalize() }
        let statement = try Statement(sql: sql, connection: connection)
        fixedTexts[sql] = statement
        return statement
    }

    func finalize() {
        for prepared in queries.values { prepared.statement.finalize() }
        for statement in referrers.values { statement.finalize() }
        for statement in fixedTexts.values { statement.finalize() }
        queries.removeAll()
        referrers.removeAll()
        fixedTexts.removeAll()
    }
}
