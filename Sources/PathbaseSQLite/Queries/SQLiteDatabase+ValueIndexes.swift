import GRDBSQLite
import Pathbase

/// Value indexes: a partial index over the current values of one (model, property)
/// (``Schema/createValueIndexSQL(model:property:)``), which queries and inverse lookups of
/// that property start from. A collection's declared indexes are created when the
/// collection is opened; a model's, the first time a query or an inverse lookup needs one.
/// Properties nobody queries have none, so writing them costs no index page.
extension SQLiteDatabase: ValueIndexingDatabase {

    /// Creates a declared index, inside a batch too (it is then rolled back with it, and
    /// forgotten here, so the collection's next save creates it again). One the connection
    /// knows of costs nothing: collections ask with every save.
    package func createValueIndex(model: ModelKey, property: PropertyKey) throws {
        try locked { () throws(SQLiteDatabaseError) in
            guard !valueIndexes.contains(model: model, property: property) else { return }
            try createValueIndexNow(model: model, property: property)
        }
    }

    /// Creates the value index of (model, property) if the file lacks it and may get it now:
    /// outside a transaction (an index created inside one would be rolled back with it, and
    /// `read { }` must not write) and on a writable file. Otherwise the query runs without
    /// it: correct, by a scan of the model's rows. Called while holding the lock.
    func prepareValueIndex(model: ModelKey, property: PropertyKey) throws(SQLiteDatabaseError) {
        guard !valueIndexes.contains(model: model, property: property) else { return }
        let handle = try openHandle()
        guard !transaction.inBatch, sqlite3_db_readonly(handle, "main") == 0 else { return }
        try createValueIndexNow(model: model, property: property)
    }

    private func createValueIndexNow(model: ModelKey, property: PropertyKey) throws(SQLiteDatabaseError) {
        let statement = try Statement(sql: Schema.createValueIndexSQL(model: model, property: property), connection: try openHandle())
        defer { statement.finalize() }
        let code = statement.step()
        guard code == SQLITE_DONE else { throw error(code) }
        valueIndexes.insert(model: model, property: property)
    }

    /// The rows of `EXPLAIN QUERY PLAN` for the SQL a query runs (for tests and tuning),
    /// once the value indexes it uses exist.
    package func queryPlan(of model: ModelKey, where predicate: StoredPredicate?, sortedBy sort: StoredSort?, readingValues: Bool = false) throws -> [String] {
        guard let query = QuerySQL(model: model, predicate: predicate, sort: sort, readingValues: readingValues) else { return [] }
        return try locked { () throws(SQLiteDatabaseError) -> [String] in
            for property in query.indexedProperties {
                try prepareValueIndex(model: model, property: property)
            }
            let statement = try Statement(sql: "EXPLAIN QUERY PLAN " + query.text, connection: try openHandle())
            defer { statement.finalize() }
            for (offset, parameter) in query.parameters(predicate: predicate, sort: sort, offset: 0, limit: nil).enumerated() {
                statement.bind(parameter, at: Int32(offset + 1))
            }
            var rows: [String] = []
            while true {
                switch statement.step() {
                case SQLITE_ROW: rows.append(statement.string(at: 3))
                case SQLITE_DONE: return rows
                case let code: throw error(code)
                }
            }
        }
    }
}

/// The value indexes this connection knows the file has (it created them, or found them
/// when it last looked). Another connection may create more; creating one that exists is a
/// no-op, so an index unknown here costs one `CREATE INDEX IF NOT EXISTS` before the next
/// query outside a transaction. An index created inside a batch (a collection's declared
/// index) is gone if the batch rolls back: a rollback forgets them all, to look again.
/// Used while holding the database's lock.
final class ValueIndexes: RowMirror {

    private var known: Set<PropertyColumn> = []

    func contains(model: ModelKey, property: PropertyKey) -> Bool {
        known.contains(PropertyColumn(model: model, property: property))
    }

    func insert(model: ModelKey, property: PropertyKey) {
        known.insert(PropertyColumn(model: model, property: property))
    }

    func rowsRolledBack() {
        known.removeAll()
    }
}

/// Collections decode many values per fetch: they read inside ``SQLiteDatabase/read(_:)``.
extension SQLiteDatabase: ReadTransactionDatabase {}
