import GRDBSQLite
import Pathbase

/// A collection's declared indexes: a partial index over the current values of one
/// (model, property), which SQLite prefers to the whole value index for that property's
/// conditions (a smaller tree, and it stays small as other models grow).
extension SQLiteDatabase: ValueIndexingDatabase {

    package func createValueIndex(model: ModelKey, property: PropertyKey) throws {
        // Ids are trusted integers (derived keys), written into the text like the queries do.
        let sql = """
            CREATE INDEX IF NOT EXISTS collection_index_\(model)_\(property)
            ON current_values(type, value) WHERE model = \(model) AND property = \(property)
            """
        try lock.withLock { () throws(SQLiteDatabaseError) in
            let statement = try Statement(sql: sql, connection: try openHandle())
            defer { statement.finalize() }
            let code = statement.step()
            guard code == SQLITE_DONE else { throw error(code) }
        }
    }

    /// The rows of `EXPLAIN QUERY PLAN` for the SQL a query runs (for tests and tuning).
    package func queryPlan(of model: ModelKey, where predicate: StoredPredicate?, sortedBy sort: StoredSort?) throws -> [String] {
        guard let query = QuerySQL(model: model, predicate: predicate, sort: sort, offset: 0, limit: nil) else { return [] }
        return try lock.withLock { () throws(SQLiteDatabaseError) -> [String] in
            let statement = try Statement(sql: "EXPLAIN QUERY PLAN " + query.text, connection: try openHandle())
            defer { statement.finalize() }
            for (offset, parameter) in query.parameters.enumerated() {
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

/// Collections decode many values per fetch: they read inside ``SQLiteDatabase/read(_:)``.
extension SQLiteDatabase: ReadTransactionDatabase {}
