import GRDBSQLite
import Pathbase

/// Value indexes: a partial index over the current values of one (model, property)
/// (``Schema/createValueIndexSQL(model:property:covering:)``), which queries and inverse
/// lookups of that property start from. A collection's declared indexes are created when
/// the collection is opened, covering (they hold the bodies too); a model's, the first time
/// a query or an inverse lookup needs one. Properties nobody queries have none, so writing
/// them costs no index page.
extension SQLiteDatabase: ValueIndexingDatabase {

    /// Creates a declared index, covering, inside a batch too (it is then rolled back with
    /// it, and forgotten here, so the collection's next save creates it again). An index of
    /// the same property that does not cover (made for a query before, or by an earlier
    /// version) is made again covering. One the connection knows of costs nothing:
    /// collections ask with every save.
    package func createValueIndex(model: ModelKey, property: PropertyKey) throws {
        try locked { () throws(SQLiteDatabaseError) in
            guard !valueIndexes.contains(model: model, property: property, covering: true) else { return }
            try createValueIndexNow(model: model, property: property, covering: true)
        }
    }

    /// Creates the value index of (model, property) if the file lacks it and may get it now:
    /// outside a transaction (an index created inside one would be rolled back with it, and
    /// `read { }` must not write) and on a writable file. Otherwise the query runs without
    /// it: correct, by a scan of the model's rows. Called while holding the lock.
    ///
    /// `covering` (inverse lookups): the index holds the bodies too. SQLite 3.40 does not
    /// read an indexed expression's value from the index, so with an index that does not
    /// cover, every match of `pathbase_value(body, p) = ?` also seeks its row in
    /// `instance_values` (issue 49: 5.5 × raw SQL, 2.5 with the index covering).
    func prepareValueIndex(model: ModelKey, property: PropertyKey, covering: Bool = false) throws(SQLiteDatabaseError) {
        guard !valueIndexes.contains(model: model, property: property, covering: covering) else { return }
        let handle = try openHandle()
        guard !transaction.inBatch, sqlite3_db_readonly(handle, "main") == 0 else { return }
        try createValueIndexNow(model: model, property: property, covering: covering)
    }

    /// Creates the index unless the file has it; a covering one replaces one that does not
    /// cover. `covering: false` keeps whichever the file has.
    private func createValueIndexNow(model: ModelKey, property: PropertyKey, covering: Bool) throws(SQLiteDatabaseError) {
        let name = Schema.valueIndexName(model: model, property: property)
        let existing = try valueIndexCovers(name)
        if covering, existing == false {
            // A read-only file keeps the index it has: queries stay correct, a seek slower.
            guard sqlite3_db_readonly(try openHandle(), "main") == 0 else { return }
            try run("DROP INDEX \(name)")
        }
        if existing == nil || (covering && existing == false) {
            try run(Schema.createValueIndexSQL(model: model, property: property, covering: covering))
        }
        valueIndexes.insert(model: model, property: property, covering: covering || existing == true)
    }

    /// Whether the file's index `name` holds the bodies; `nil` when the file has no such index.
    private func valueIndexCovers(_ name: String) throws(SQLiteDatabaseError) -> Bool? {
        let statement = try Statement(
            sql: """
                SELECT EXISTS (SELECT 1 FROM pragma_index_info(?1) WHERE name = 'body')
                FROM sqlite_master WHERE type = 'index' AND name = ?1
                """, connection: try openHandle())
        defer { statement.finalize() }
        statement.bind(name, at: 1)
        guard try statement.hasRow() else { return nil }
        return statement.int64(at: 0) != 0
    }

    /// Runs one statement that returns no rows.
    private func run(_ sql: String) throws(SQLiteDatabaseError) {
        let statement = try Statement(sql: sql, connection: try openHandle())
        defer { statement.finalize() }
        let code = statement.step()
        guard code == SQLITE_DONE else { throw error(code) }
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

    /// Each index known, and whether it covers (holds the bodies).
    private var known: [ModelProperty: Bool] = [:]

    /// Whether the index of (model, property) is known, and covers when `covering`.
    func contains(model: ModelKey, property: PropertyKey, covering: Bool) -> Bool {
        guard let covers = known[ModelProperty(model: model, property: property)] else { return false }
        return covers || !covering
    }

    func insert(model: ModelKey, property: PropertyKey, covering: Bool) {
        known[ModelProperty(model: model, property: property)] = covering
    }

    func rowsRolledBack() {
        known.removeAll()
    }
}

/// Collections decode many values per fetch: they read inside ``SQLiteDatabase/read(_:)``.
extension SQLiteDatabase: ReadTransactionDatabase {}
