import GRDBSQLite
import Pathbase

/// One thing wrong in a database file, found by ``SQLiteDatabase/checkIntegrity(limit:)``.
///
/// ```swift
/// for problem in try database.checkIntegrity() {
///     print(problem) // "records 3/1/2: a value whose type tag 99 is unknown"
/// }
/// ```
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {

    /// Where: the table and, for a stored value, its path; `nil` path for SQLite's own
    /// findings (pages, indexes).
    public var table: String
    /// The path of the damaged value; `nil` for SQLite's own findings.
    public var path: Path?

    /// What is wrong, in words.
    public var reason: String

    /// Creates a problem.
    public init(table: String, path: Path?, reason: String) {
        self.table = table
        self.path = path
        self.reason = reason
    }

    public var description: String {
        path.map { "\(table) \($0): \(reason)" } ?? "\(table): \(reason)"
    }
}

extension SQLiteDatabase {

    /// Checks the file: SQLite's `PRAGMA integrity_check` (pages, b-trees, indexes), then
    /// Pathbase's own rules for every stored value. Returns what is wrong; empty when the
    /// file is sound.
    ///
    /// ```swift
    /// let database = try SQLiteDatabase(path: "app.sqlite", options: .init(readOnly: true))
    /// let problems = try database.checkIntegrity()
    /// print(problems.isEmpty ? "ok" : problems.map(\.description).joined(separator: "\n"))
    /// ```
    ///
    /// Pathbase's rules, for `current_values` and `superseded_records`: every instance body
    /// reads (`instance_values`); the path's model and property
    /// ids are within the exchange contract (`Path/exchangeProblem`; a `Replica`'s own
    /// bookkeeping under `Replica/stateModel` excepted); the type tag is one
    /// Pathbase writes, and a `Codable` value's type id is in `value_types`; the stored
    /// SQLite value has the kind its tag says (text for a `String`, and so on); an instance
    /// status (property 0) is a status. At most `limit` problems are listed per rule and
    /// table. It reads the whole file: for tools such as `pathbase check`, not for apps'
    /// hot paths. Never writes.
    public func checkIntegrity(limit: Int = 20) throws(SQLiteDatabaseError) -> [IntegrityProblem] {
        var problems = try query("PRAGMA integrity_check(\(max(1, limit)))") { _ in
        } row: { statement in
            statement.string(at: 0)
        }
        .filter { $0 != "ok" }
        .map { IntegrityProblem(table: "SQLite", path: nil, reason: $0) }
        problems += try query(
            """
            SELECT model, instance FROM instance_values WHERE NOT pathbase_is_body(body) LIMIT \(max(1, limit))
            """
        ) { _ in
        } row: { statement in
            IntegrityProblem(
                table: "instance_values",
                path: Path(model: Int(statement.int64(at: 0)), instance: Int(statement.int64(at: 1)), property: PropertyKey.instanceId),
                reason: "a malformed instance body: its current values can't be read"
            )
        }
        // The current values of the bodies that read.
        let currentValues = "(\(Schema.currentValuesSelect) WHERE pathbase_is_body(i.body))"
        problems += try valueProblems(in: currentValues, named: "current_values", limit: max(1, limit))
        problems += try valueProblems(in: "superseded_records", named: "superseded_records", limit: max(1, limit))
        return problems
    }

    /// The stored values of `source` (a table, or a subquery with its columns) that break
    /// Pathbase's rules; problems name it `table`.
    private func valueProblems(in source: String, named table: String, limit: Int) throws(SQLiteDatabaseError) -> [IntegrityProblem] {
        // The SQLite kind each tag is stored as (see ValueTag); NULL for an unknown tag.
        let expectedKind = """
            CASE WHEN type = \(ValueTag.null.rawValue) THEN 'null'
                 WHEN type BETWEEN \(ValueTag.bool.rawValue) AND \(ValueTag.uint64.rawValue) OR type = \(ValueTag.status.rawValue) THEN 'integer'
                 WHEN type IN (\(ValueTag.double.rawValue), \(ValueTag.float.rawValue), \(ValueTag.date.rawValue)) THEN 'real'
                 WHEN type = \(ValueTag.string.rawValue) THEN 'text'
                 WHEN type IN (\(ValueTag.data.rawValue), \(ValueTag.integerArray.rawValue)) OR type >= \(ValueTag.codableBase) THEN 'blob'
            END
            """
        let rules: [(condition: String, reason: String)] = [
            // A replica's bookkeeping (Replica.stateModel, the smallest Int) is Pathbase's own.
            ("(model < 0 AND model != \(Replica.stateModel)) OR property < 0", "a path outside the exchange contract (a negative model or property id)"),
            ("(\(expectedKind)) IS NULL", "a value whose type tag is unknown"),
            (
                "type >= \(ValueTag.codableBase) AND type - \(ValueTag.codableBase) NOT IN (SELECT id FROM value_types)",
                "a Codable value whose type id is missing from value_types"
            ),
            // NaN is stored as NULL; a NULL blob is an empty one.
            (
                "(\(expectedKind)) IS NOT NULL AND typeof(value) != (\(expectedKind)) AND NOT (typeof(value) = 'null' AND (\(expectedKind)) IN ('real', 'blob'))",
                "a value stored as another kind than its type tag says"
            ),
            (
                "property = \(PropertyKey.instanceId) AND (type != \(ValueTag.status.rawValue) OR value NOT IN (\(InstanceStatus.notCreated.rawValue), \(InstanceStatus.created.rawValue), \(InstanceStatus.deleted.rawValue)))",
                "an instance status that is not a status"
            )
        ]
        var problems: [IntegrityProblem] = []
        for rule in rules {
            problems += try query(
                """
                SELECT model, instance, property, type FROM \(source) WHERE \(rule.condition) LIMIT \(limit)
                """
            ) { _ in
            } row: { statement in
                IntegrityProblem(
                    table: table,
                    path: Path(model: Int(statement.int64(at: 0)), instance: Int(statement.int64(at: 1)), property: Int(statement.int64(at: 2))),
                    reason: "\(rule.reason) (type tag \(statement.int64(at: 3)))"
                )
            }
        }
        return problems
    }
}
